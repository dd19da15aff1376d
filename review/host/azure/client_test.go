package azure

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// TestRedirectKeepsToken: a redirect to another host does not carry the
// token there; the organization's own host gets it on every request.
func TestRedirectKeepsToken(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"authenticatedUser": {"id": "5c0d8a3e-6b0f-4d39-9c33-3f8d1c7e2a10"}}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k" {
			t.Errorf("%s without the token", r.URL.Path)
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer api.Close()
	c, err := newClient(Options{CollectionURL: api.URL + "/org/", Token: "t0k", Project: "p", Repo: "r", PR: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.me(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(elsewhere) != 1 || elsewhere[0] != "" {
		t.Errorf("the other host got %q", elsewhere)
	}
}

// TestHostileAnswers: what a server answers that Azure DevOps would not is
// one line that names it, and nothing is posted after it; threads whose
// IDs are not IDs are left out.
func TestHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, me, want string
	}{
		{"not JSON", `<html>sign in</html>`, "Azure DevOps's answer is not the JSON expected"},
		{"wrong shape", `{"authenticatedUser": {"id": 7}}`, "Azure DevOps's answer is not the JSON expected"},
		{"not an identity", `{"authenticatedUser": {"id": "../../x\n::warning::"}}`, `named identity "../../x ::warning::", which is not an identity's ID`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			posted := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet {
					posted = true
				}
				w.Write([]byte(tc.me))
			}))
			defer srv.Close()
			p := &Poster{Options: Options{CollectionURL: srv.URL + "/org", Token: "t", Project: "p", Repo: "r", PR: 1, HeadSHA: h1, MaxAttempts: 1}}
			_, err := p.Post(context.Background(), &result.Result{RunID: "r"}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || posted {
				t.Fatalf("err = %v, posted %v; want %q", err, posted, tc.want)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"count": 3, "value": [{"id": -4, "comments": [{"id": 1, "content": "x"}]}, {"id": 5, "comments": []}, {"id": 6, "comments": [{"id": 1, "content": "y"}]}]}`))
	}))
	defer srv.Close()
	c, err := newClient(Options{CollectionURL: srv.URL, Token: "t", Project: "p", Repo: "r", PR: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := c.threads(context.Background())
	if err != nil || len(ts) != 1 || ts[0].ID != 6 {
		t.Errorf("threads = %+v, %v; want thread 6 alone", ts, err)
	}
	// Options no answer can pass: a project or repository that is not a
	// name, an address that is not http(s), a head that is not a SHA.
	for _, o := range []Options{
		{CollectionURL: "https://dev.azure.com/org/", Token: "t", Project: "p/../x", Repo: "r", PR: 1},
		{CollectionURL: "https://dev.azure.com/org/", Token: "t", Project: "p", Repo: "r?x", PR: 1},
		{CollectionURL: "ftp://dev.azure.com/org/", Token: "t", Project: "p", Repo: "r", PR: 1},
		{CollectionURL: "https://dev.azure.com/org/", Token: "t", Project: "p", Repo: "r", PR: 0},
	} {
		if _, err := newClient(o, ""); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := newClient(Options{CollectionURL: "https://dev.azure.com/org/", Token: "t", Project: "p", Repo: "r", PR: 1}, strings.Repeat("a", 100000)); err == nil || len(err.Error()) > 300 {
		t.Errorf("a huge head: %.300v", err)
	}
}

// TestOpen: Azure Pipelines' variables name the pull request, its target
// branch and source commit; SYSTEM_ACCESSTOKEN goes as Bearer, else
// AZURE_DEVOPS_TOKEN as Basic; --azure-url names the organization over
// SYSTEM_COLLECTIONURI; what is missing or wrong is said before any review.
func TestOpen(t *testing.T) {
	env := map[string]string{
		"TF_BUILD": "True", "SYSTEM_COLLECTIONURI": "https://dev.azure.com/fabrikam/", "SYSTEM_TEAMPROJECT": "Fabrikam",
		"BUILD_REPOSITORY_ID": "3411ebc1-d5aa-464f-9615-0b527bc66719", "BUILD_REPOSITORY_PROVIDER": "TfsGit",
		"SYSTEM_PULLREQUEST_PULLREQUESTID": "22", "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/release/1.2",
		"SYSTEM_PULLREQUEST_SOURCECOMMITID": strings.ToUpper(h1), "SYSTEM_ACCESSTOKEN": "job", "AZURE_DEVOPS_TOKEN": "pat",
	}
	with := func(over map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return env[k]
		}
	}
	if base, ok := ci(with(nil)); !ok || base != "origin/release/1.2" {
		t.Errorf("ci = %q, %v", base, ok)
	}
	if _, ok := ci(with(map[string]string{"TF_BUILD": ""})); ok {
		t.Error("not Azure Pipelines, but ci says so")
	}
	for _, tt := range []struct {
		name  string
		over  map[string]string
		flags map[string]string
		want  Options
		err   string
	}{
		{name: "pipeline", want: Options{CollectionURL: "https://dev.azure.com/fabrikam/", Project: "Fabrikam", Repo: env["BUILD_REPOSITORY_ID"], PR: 22, Token: "job", HeadSHA: h1}},
		{name: "pat", over: map[string]string{"SYSTEM_ACCESSTOKEN": ""}, flags: map[string]string{"azure-url": "https://tfs.example/DefaultCollection"},
			want: Options{CollectionURL: "https://tfs.example/DefaultCollection", Project: "Fabrikam", Repo: env["BUILD_REPOSITORY_ID"], PR: 22, Token: "pat", Basic: true, HeadSHA: h1}},
		{name: "no token", over: map[string]string{"SYSTEM_ACCESSTOKEN": "", "AZURE_DEVOPS_TOKEN": ""}, err: "posting to azure needs SYSTEM_ACCESSTOKEN"},
		{name: "no organization", over: map[string]string{"SYSTEM_COLLECTIONURI": ""}, err: "posting to azure needs the organization's address"},
		{name: "not a pull request", over: map[string]string{"SYSTEM_PULLREQUEST_PULLREQUESTID": ""}, err: "posting to azure needs SYSTEM_PULLREQUEST_PULLREQUESTID"},
		{name: "bad pull request", over: map[string]string{"SYSTEM_PULLREQUEST_PULLREQUESTID": "22; x"}, err: `SYSTEM_PULLREQUEST_PULLREQUESTID "22; x" is not a pull request's ID`},
		{name: "GitHub repository", over: map[string]string{"BUILD_REPOSITORY_PROVIDER": "GitHub"}, err: `BUILD_REPOSITORY_PROVIDER "GitHub" is not an Azure Repos Git repository`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := open(seam.Setup{Getenv: with(tt.over), Flags: tt.flags})
			if tt.err != "" {
				var need *seam.NeedError
				var bad *seam.ValueError
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) || !errors.As(err, &need) && !errors.As(err, &bad) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tg.Poster.(*Poster).Options; got != tt.want || tg.Head != h1 || tg.Poster.Target() != "pull request !22" {
				t.Errorf("options %+v, head %q; want %+v", got, tg.Head, tt.want)
			}
		})
	}
}

// TestRetryLanded: a post Azure DevOps makes and then fails to answer
// (a 500 after the thread is kept) is not made again: the retry finds the
// summary thread by its marker first.
func TestRetryLanded(t *testing.T) {
	a := &hosttest.Azure{Token: "t", Head: h1}
	_, stop := a.Start()
	defer stop()
	var mu sync.Mutex
	posts, failed := 0, false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, r)
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/threads") {
			posts++
			if !failed {
				failed = true
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()
	p := &Poster{Options: Options{CollectionURL: srv.URL + "/fabrikam/", Token: "t", Project: "p", Repo: "r", PR: 1, HeadSHA: h1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}}
	rep, err := p.Post(context.Background(), &result.Result{RunID: "run1", Findings: []result.Finding{{Path: "a.go", Line: 1, Severity: result.Low, Title: "t"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if posts != 1 || !failed || !strings.Contains(rep.URL, "discussionId=") || strings.HasSuffix(rep.URL, "=0") || rep.InBody != 1 {
		t.Errorf("%d posts, report %+v: want one post, found again after its 500", posts, rep)
	}
}
