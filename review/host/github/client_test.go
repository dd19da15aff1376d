package github

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRedirectKeepsToken: GitHub answering with a redirect to another host
// (a 307 keeps the method and body) is followed, but the token goes to the
// API's host only; a redirect within the host keeps it.
func TestRedirectKeepsToken(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string // "host path auth"
	)
	note := func(who string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, who+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note("other", r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note("api", r)
		switch r.URL.Path {
		case "/api/v3/user":
			http.Redirect(w, r, "/api/v3/moved/user", http.StatusTemporaryRedirect)
		case "/api/v3/moved/user":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"login": "me", "type": "User"}`))
		default:
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}
	}))
	defer api.Close()
	o := PostOptions{APIURL: api.URL + "/api/v3", Token: fakeToken, Repo: "o/r", PR: 7, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	if _, err := ReadEarlier(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var toOther int
	for _, s := range seen {
		who, _, _ := strings.Cut(s, " ")
		withToken := strings.HasSuffix(s, "Bearer "+fakeToken)
		switch {
		case who == "other" && withToken:
			t.Errorf("the token went to another host: %s", s)
		case who == "other":
			toOther++
		case !withToken:
			t.Errorf("the API's host got no token: %s", s)
		}
	}
	if toOther == 0 {
		t.Errorf("no redirect to the other host was followed: %q", seen)
	}
}

// TestTimeout: an API that never answers fails each request after the
// client's timeout and the whole step after PostOptions.Timeout, retries
// included, with an error that says so.
func TestTimeout(t *testing.T) {
	stop := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer api.Close()
	defer close(stop)
	o := PostOptions{APIURL: api.URL, Token: fakeToken, Repo: "o/r", PR: 7,
		HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}, Timeout: 400 * time.Millisecond,
		MaxAttempts: 1000, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	start := time.Now()
	_, err := ReadEarlier(context.Background(), o)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Limit != o.Timeout {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
	// A thousand attempts of 100 ms each would take 100 s.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s to fail, with a timeout of %s", took, o.Timeout)
	}
	if msg := err.Error(); !strings.Contains(msg, "did not answer within 400ms") || strings.Contains(msg, fakeToken) {
		t.Errorf("error %q", msg)
	}

	// A client without a timeout of its own gets RequestTimeout.
	c, err := newClient(PostOptions{Token: fakeToken, Repo: "o/r", PR: 7, HeadSHA: fakeHead, HTTPClient: &http.Client{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.api.Client().Timeout; got != RequestTimeout {
		t.Errorf("request timeout %s, want %s", got, RequestTimeout)
	}
}
