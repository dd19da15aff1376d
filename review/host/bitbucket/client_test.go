package bitbucket

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/review/host/seam"
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
	body := c.signed(seam.ReviewMarker("run1", h1) + "\nbody")
	if !c.verified(body) || strings.Contains(body, "secret-token") {
		t.Fatalf("%q does not verify", body)
	}
	other := &client{key: signKey("another")}
	for _, b := range []string{
		strings.Replace(body, "run1", "run2", 1),
		seam.ReviewMarker("run1", h1) + "\nbody",
		other.signed(seam.ReviewMarker("run1", h1) + "\nbody"),
		"x" + body,
	} {
		if c.verified(b) {
			t.Errorf("%q verifies", b)
		}
	}
	if _, head, _, ok := seam.ReadReviewMarker(body); !ok || head != h1 {
		t.Errorf("the signed marker reads as head %q, %v", head, ok)
	}
	line := c.signed(seam.CommentMarker("ab12", "run1", "code=1-0123456789abcdef") + "\nx")
	if fp, run, code, ok := seam.ReadThreadMarker(line); !ok || fp != "ab12" || run != "run1" || code != "1-0123456789abcdef" {
		t.Errorf("the signed comment marker reads as %q %q %q %v", fp, run, code, ok)
	}
}

// TestServerErrors: a Bitbucket that answers 500 every time is asked
// again, then the error is one line that says how many attempts, what
// Bitbucket said and what to do; nothing is posted.
func TestServerErrors(t *testing.T) {
	var mu sync.Mutex
	n, posted := 0, false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		posted = posted || r.Method != http.MethodGet
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"type": "error", "error": {"message": "Something went wrong"}}`))
	}))
	defer srv.Close()
	p := &Poster{Options: Options{APIURL: srv.URL + "/2.0", Token: "t", Workspace: "w", Repo: "r", PR: 1, HeadSHA: h1, MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}}
	_, err := p.Post(context.Background(), &result.Result{RunID: "r"}, nil)
	want := "reading pull request w/r#1 (3 attempts): Bitbucket answered 500 Something went wrong: Bitbucket had a problem; run again later"
	if err == nil || err.Error() != want || n != 3 || posted {
		t.Fatalf("err = %v after %d requests, posted %v; want %q", err, n, posted, want)
	}
}

// FuzzAnswers reads whatever a server answers as a page of a pull
// request's comments: sorting it never panics, counts as review's only a
// comment whose marker carries its signature, and hands the ledger no
// thread without a comment ID, a fingerprint and a path.
func FuzzAnswers(f *testing.F) {
	c := &client{key: signKey("t")}
	ours := c.signed(seam.CommentMarker("0123456789abcdef0123456789abcdef", "r1", "code=1-0123456789abcdef") + "\n**[high] x** · security")
	summary := c.signed(seam.ReviewMarker("r1", h1, "heads="+h1) + "\nbody")
	f.Add(`{"values": [{"id": 5, "content": {"raw": ` + strconv.Quote(ours) + `}, "inline": {"path": "a.go", "to": 3}}]}`)
	f.Add(`{"values": [{"id": 5, "content": {"raw": ` + strconv.Quote(ours) + `}, "inline": {"path": "a.go"}, "resolution": {"user": null}}]}`)
	f.Add(`{"values": [{"id": 6, "content": {"raw": ` + strconv.Quote(summary) + `}}, {"id": 7, "parent": {"id": 5}, "content": null}], "next": "x?page=2"}`)
	f.Add(`{"values": [{"id": 5, "content": {"raw": "<!-- review:run=a head=abc sig=0000000000000000 -->"}}]}`)
	f.Fuzz(func(t *testing.T, answer string) {
		var p page[comment]
		if json.Unmarshal([]byte(answer), &p) != nil {
			return
		}
		st := &prState{}
		c.sort(st, p.Values)
		for _, cm := range append(st.lines, st.comments...) {
			_ = cm.line()
		}
		if st.summary != nil && (!c.verified(st.summary.Content.Raw) || !seam.SHA().MatchString(st.summaryHead)) {
			t.Fatalf("summary %+v, head %q", st.summary, st.summaryHead)
		}
		for _, h := range st.heads {
			if !seam.SHA().MatchString(h) {
				t.Fatalf("head %q", h)
			}
		}
		for _, th := range c.threads(st) {
			if _, err := strconv.ParseInt(th.ID, 10, 64); err != nil || th.Fingerprint == "" || th.Path == "" {
				t.Fatalf("thread %+v", th)
			}
		}
	})
}

// TestUnfold: the collapsed section of earlier reviews' findings is a
// section under a heading on Bitbucket, which would show the HTML tags;
// a "</details>" in a finding's code block stays, and a summary without
// the section is as written.
func TestUnfold(t *testing.T) {
	in := "marker\n### review\n\n<details><summary>Findings of earlier reviews (2)</summary>\n\n_Listed here._\n\n```\n</details>\n```\n\n</details>\n\n---\nusage\n"
	want := "marker\n### review\n\n#### Findings of earlier reviews (2)\n\n_Listed here._\n\n```\n</details>\n```\n\n\n---\nusage\n"
	if got := unfold(in); got != want {
		t.Errorf("unfold:\n%q\nwant\n%q", got, want)
	}
	if s := "marker\n### review\n\nno section\n"; unfold(s) != s {
		t.Errorf("unfold changed %q", s)
	}
}
