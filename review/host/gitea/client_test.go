package gitea

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reviewdev/review/review/result"
)

// TestRedirectKeepsToken: a redirect to another host does not carry the
// token there; the API's own host gets it on every request.
func TestRedirectKeepsToken(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"id": 1, "login": "x"}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token t0k" {
			t.Errorf("%s without the token", r.URL.Path)
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer api.Close()
	c, err := newClient(Options{APIURL: api.URL + "/api/v1", Token: "t0k", Repo: "o/r", PR: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	var me user
	if err := c.get(context.Background(), "asking who the token belongs to", "/user", &me); err != nil {
		t.Fatal(err)
	}
	if len(elsewhere) != 1 || elsewhere[0] != "" {
		t.Errorf("the other host got %q", elsewhere)
	}
}

// TestHostileAnswers: what a server answers that Gitea would not is one
// line that names it, and nothing is posted after it.
func TestHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, user, want string
	}{
		{"not JSON", `<html>sign in</html>`, "Gitea's answer is not the JSON expected"},
		{"wrong shape", `{"id": "two", "login": 3}`, "Gitea's answer is not the JSON expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			posted := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet {
					posted = true
				}
				w.Write([]byte(tc.user))
			}))
			defer srv.Close()
			p := &Poster{Options: Options{APIURL: srv.URL + "/api/v1", Token: "t", Repo: "o/r", PR: 1, HeadSHA: h1, MaxAttempts: 1}}
			r := &result.Result{RunID: "r"}
			_, err := p.Post(context.Background(), r, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || posted {
				t.Fatalf("err = %v, posted %v; want %q", err, posted, tc.want)
			}
		})
	}
	// Options no answer can pass: a repository that is not owner/name, a
	// head that is not a SHA.
	for _, o := range []Options{
		{APIURL: "https://g.example/api/v1", Token: "t", Repo: "o/r/x", PR: 1},
		{APIURL: "https://g.example/api/v1", Token: "t", Repo: "../r", PR: 1},
		{APIURL: "ftp://g.example/api/v1", Token: "t", Repo: "o/r", PR: 1},
	} {
		if _, err := newClient(o, ""); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := newClient(Options{APIURL: "https://g.example/api/v1", Token: "t", Repo: "o/r", PR: 1}, strings.Repeat("a", 100000)); err == nil || len(err.Error()) > 300 {
		t.Errorf("a huge head: %.300v", err)
	}
}
