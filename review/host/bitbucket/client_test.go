package bitbucket

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reviewdev/review/review/host"
	"github.com/reviewdev/review/review/result"
)

// TestRedirectKeepsToken: a redirect to another host does not carry the
// token there; the API's own host gets it, as a Bearer token, on every
// request.
func TestRedirectKeepsToken(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"type": "pullrequest", "id": 1}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k" {
			t.Errorf("%s without the token", r.URL.Path)
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer api.Close()
	c, err := newClient(Options{APIURL: api.URL + "/2.0", Token: "t0k", Workspace: "w", Repo: "r", PR: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	var pr pullRequest
	if err := c.get(context.Background(), "reading", c.prPath, &pr); err != nil {
		t.Fatal(err)
	}
	if len(elsewhere) != 1 || elsewhere[0] != "" {
		t.Errorf("the other host got %q", elsewhere)
	}
}

// TestHostileAnswers: what a server answers that Bitbucket would not is
// one line that names it, and nothing is posted after it; options no
// answer can pass are refused.
func TestHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, pr, comments, want string
	}{
		{"not JSON", `<html>log in</html>`, `{}`, "Bitbucket's answer is not the JSON expected"},
		{"wrong shape", `{"id": "two"}`, `{}`, "Bitbucket's answer is not the JSON expected"},
		{"next page without a number", `{"id": 1}`, `{"values": [], "next": "https://elsewhere.example/x?page=../../x"}`, "names no page number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			posted := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet {
					posted = true
				}
				if strings.HasSuffix(r.URL.Path, "/comments") {
					w.Write([]byte(tc.comments))
					return
				}
				w.Write([]byte(tc.pr))
			}))
			defer srv.Close()
			p := &Poster{Options: Options{APIURL: srv.URL + "/2.0", Token: "t", Workspace: "w", Repo: "r", PR: 1, HeadSHA: h1, MaxAttempts: 1}}
			_, err := p.Post(context.Background(), &result.Result{RunID: "r"}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || posted {
				t.Fatalf("err = %v, posted %v; want %q", err, posted, tc.want)
			}
		})
	}
	for _, o := range []Options{
		{APIURL: DefaultAPIURL, Token: "t", Workspace: "w/x", Repo: "r", PR: 1},
		{APIURL: DefaultAPIURL, Token: "t", Workspace: "..", Repo: "r", PR: 1},
		{APIURL: "ftp://b.example/2.0", Token: "t", Workspace: "w", Repo: "r", PR: 1},
		{APIURL: DefaultAPIURL, Token: "", Workspace: "w", Repo: "r", PR: 1},
	} {
		if _, err := newClient(o, ""); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := newClient(Options{APIURL: DefaultAPIURL, Token: "t", Workspace: "w", Repo: "r", PR: 1}, strings.Repeat("a", 100000)); err == nil || len(err.Error()) > 300 {
		t.Errorf("a huge head: %.300v", err)
	}
}

// TestSigned: a marker review signs verifies with its token only; one
// changed, unsigned, or signed with another token does not, and the
// token is nowhere in what is posted.
func TestSigned(t *testing.T) {
	c := &client{key: signKey("secret-token")}
	body := c.signed(host.ReviewMarker("run1", h1) + "\nbody")
	if !c.verified(body) || strings.Contains(body, "secret-token") {
		t.Fatalf("%q does not verify", body)
	}
	other := &client{key: signKey("another")}
	for _, b := range []string{
		strings.Replace(body, "run1", "run2", 1),
		host.ReviewMarker("run1", h1) + "\nbody",
		other.signed(host.ReviewMarker("run1", h1) + "\nbody"),
		"x" + body,
	} {
		if c.verified(b) {
			t.Errorf("%q verifies", b)
		}
	}
	if _, head, _, ok := host.ReadReviewMarker(body); !ok || head != h1 {
		t.Errorf("the signed marker reads as head %q, %v", head, ok)
	}
	line := c.signed(host.CommentMarker("ab12", "run1", "code=1-0123456789abcdef") + "\nx")
	if fp, run, code, ok := host.ReadThreadMarker(line); !ok || fp != "ab12" || run != "run1" || code != "1-0123456789abcdef" {
		t.Errorf("the signed comment marker reads as %q %q %q %v", fp, run, code, ok)
	}
}
