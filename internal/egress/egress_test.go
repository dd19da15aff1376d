package egress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestMeterCounts holds what a meter counts: each destination by host and
// path (not query), its requests and the bytes of the bodies each way as
// read, each hop of a redirect to another host as its own destination,
// a refused request as failed, and the placeholders in what was sent by
// rule, a secret once however often it is sent.
func TestMeterCounts(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "elsewhere")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, other.URL+"/there", http.StatusFound)
			return
		}
		io.WriteString(w, `{"ok":true}`) // 11 bytes
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	m := New()
	c := m.Client(nil)
	body := `{"messages":["[secret:github-pat#1a2b] and [secret:github-pat#1a2b] and [secret:aws-access-token#ffff]"]}`
	for range 2 {
		resp, err := c.Post(srv.URL+"/v1/chat/completions?api-key=k", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	resp, err := c.Get(srv.URL + "/moved")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, err := c.Get(closedURL + "/gone"); err == nil {
		t.Fatal("a closed server answered")
	}

	r := m.Take()
	host := func(u string) string { p, _ := url.Parse(u); return p.Host }
	want := []Destination{
		{Host: host(srv.URL), Path: "/v1/chat/completions", Requests: 2, Sent: int64(2 * len(body)), Received: 22},
		{Host: host(srv.URL), Path: "/moved", Requests: 1, Received: 0},
		{Host: host(other.URL), Path: "/there", Requests: 1, Received: 9},
		{Host: host(closedURL), Path: "/gone", Requests: 1, Failed: 1},
	}
	if len(r.Destinations) != len(want) {
		t.Fatalf("destinations = %+v, want %+v", r.Destinations, want)
	}
	for i, d := range r.Destinations {
		w := want[i]
		if d.Path == "/moved" {
			w.Received = d.Received // the redirect's own short body
		}
		if d != w {
			t.Errorf("destination %d = %+v, want %+v", i, d, w)
		}
	}
	if len(r.Redactions) != 2 || r.Redactions[0].Rule != "aws-access-token" || r.Redactions[1].Rule != "github-pat" {
		t.Fatalf("redactions = %+v", r.Redactions)
	}
	if x := r.Redactions[1]; x.Secrets != 1 || x.Requests != 2 || len(x.IDs) != 1 {
		t.Errorf("github-pat = %+v, want 1 secret in 2 requests", x)
	}

	// A second span counts only what was sent since; a secret sent
	// before is not new.
	if !m.Take().Empty() {
		t.Error("a span with no request is not empty")
	}
	resp, err = c.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r2 := m.Take()
	if len(r2.Destinations) != 1 || r2.Destinations[0].Requests != 1 {
		t.Errorf("second span = %+v", r2.Destinations)
	}
	for _, x := range r2.Redactions {
		if len(x.IDs) != 0 || x.Secrets != 0 || x.Requests != 1 {
			t.Errorf("second span's %s = %+v: a secret sent before counted again", x.Rule, x)
		}
	}

	// Summed, the spans count each secret once.
	var sum Record
	sum.Add(r)
	sum.Add(r2)
	if d := sum.Destinations[0]; d.Requests != 3 {
		t.Errorf("summed requests = %d, want 3", d.Requests)
	}
	if x := sum.Redactions[1]; x.Secrets != 1 || x.Requests != 3 {
		t.Errorf("summed github-pat = %+v, want 1 secret in 3 requests", x)
	}
	if got := strings.Join(sum.Hosts(), " "); got != host(srv.URL)+" "+host(other.URL)+" "+host(closedURL) {
		t.Errorf("hosts = %s", got)
	}
}

// TestMeterBodyWithoutGetBody holds that a request whose body cannot be
// read again is still sent whole, and counted.
func TestMeterBodyWithoutGetBody(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
	}))
	defer srv.Close()
	m := New()
	req, _ := http.NewRequest("POST", srv.URL+"/p", io.NopCloser(strings.NewReader("hello")))
	req.GetBody = nil
	resp, err := m.Client(&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "hello" {
		t.Errorf("server got %q", got)
	}
	if d := m.Take().Destinations; len(d) != 1 || d[0].Sent != 5 {
		t.Errorf("destinations = %+v", d)
	}
}

func TestNilMeter(t *testing.T) {
	var m *Meter
	hc := &http.Client{}
	if m.Client(hc) != hc || m.Transport(nil) != nil || !m.Take().Empty() {
		t.Error("a nil meter changed something")
	}
	// Wrapping twice counts once.
	m = New()
	tr := m.Transport(nil)
	if m.Transport(tr) != tr {
		t.Error("a meter wrapped its own transport again")
	}
}
