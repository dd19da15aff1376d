package reviewtest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/review/reviewtest"
)

// A rate-limit storm answers every chat request 429 with Retry-After for
// its window from the first one, taking no step; then the script goes on.
func TestRateLimitStorm(t *testing.T) {
	s := parse(t, `{"rate_limit": {"for": "300ms", "retry_after": "3"}, "steps": [{"content": "after"}]}`)
	srv := reviewtest.NewServer(s, "")
	defer srv.Close()
	for range 2 {
		status, h, _ := post(t, srv, request, nil)
		if status != http.StatusTooManyRequests || h.Get("Retry-After") != "3" {
			t.Fatalf("in the storm: %d, Retry-After %q", status, h.Get("Retry-After"))
		}
	}
	time.Sleep(350 * time.Millisecond)
	if status, _, body := post(t, srv, request, nil); status != http.StatusOK || !strings.Contains(string(body), "after") {
		t.Fatalf("after the storm: %d %s", status, body)
	}
	if _, err := reviewtest.ParseScript([]byte(`{"rate_limit": {"for": "soon"}}`)); err == nil {
		t.Error("a storm of no duration parsed")
	}
}

// Requests beside chat completions are noted, in probes.log too, with
// whether they carried a key; Ollama's root says so when /api/show is
// scripted.
func TestProbes(t *testing.T) {
	dir := t.TempDir()
	srv := reviewtest.NewServer(parse(t, `{"show": {"parameters": "num_ctx 8"}, "steps": []}`), dir)
	defer srv.Close()
	root := strings.TrimSuffix(srv.URL, "/v1")
	req, _ := http.NewRequest(http.MethodGet, root+"/props", nil)
	req.Header.Set("Authorization", "Bearer sk-x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(root + "/")
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, _ := resp.Body.Read(b)
	resp.Body.Close()
	if string(b[:n]) != "Ollama is running" {
		t.Errorf("root answered %q", b[:n])
	}
	log, err := os.ReadFile(filepath.Join(dir, "probes.log"))
	if err != nil || string(log) != "GET /props with key\nGET / no key\n" {
		t.Errorf("probes.log %q, %v", log, err)
	}
	if got := srv.Probes(); len(got) != 2 || got[0].Path != "/props" {
		t.Errorf("probes %+v", got)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("probes numbered as chat requests: %d", len(srv.Requests()))
	}
}
