package seam

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A page number is taken from a host's headers as a number, written
// afresh: no more of the answer reaches the next request.
func TestPageNumber(t *testing.T) {
	for in, want := range map[string]string{
		"2": "2", "0002": "2", strings.Repeat("0", 100_000) + "1": "", "": "", "-1": "", "0": "", "x": "", "99999999999999999999": "",
	} {
		got, ok := PageNumber(in)
		if got != want || ok != (want != "") {
			t.Errorf("PageNumber(%.20q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestNextPage(t *testing.T) {
	for _, tc := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"X-Next-Page": {"3"}}, "3"},
		{http.Header{"X-Next-Page": {""}}, ""},
		{http.Header{"Link": {`<https://elsewhere.example/api/v4/x?page=4&per_page=100>; rel="next", <https://gitlab.example/x?page=9>; rel="last"`}}, "4"},
		{http.Header{"Link": {`<https://gitlab.example/x?page=9>; rel="last"`}}, ""},
		{http.Header{}, ""},
	} {
		if got := NextPage(tc.h); got != tc.want {
			t.Errorf("NextPage(%v) = %q, want %q", tc.h, got, tc.want)
		}
	}
}

func TestKeepTokenHome(t *testing.T) {
	check := KeepTokenHome("gitlab.example", "PRIVATE-TOKEN", nil)
	for host, keep := range map[string]bool{"gitlab.example": true, "GITLAB.example": true, "cdn.example": false, "gitlab.example:8443": false} {
		req, _ := http.NewRequest("GET", "https://"+host+"/x", nil)
		req.Header.Set("PRIVATE-TOKEN", "t")
		if err := check(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("PRIVATE-TOKEN") != ""; got != keep {
			t.Errorf("%s: token kept %v, want %v", host, got, keep)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	if d, ok := RetryAfter(http.Header{"Retry-After": {"7"}}); !ok || d != 7*time.Second {
		t.Errorf("7: %v %v", d, ok)
	}
	if _, ok := RetryAfter(http.Header{}); ok {
		t.Error("no header: hinted")
	}
	if d, ok := RetryAfter(http.Header{"Retry-After": {time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}}); !ok || d != 0 {
		t.Errorf("past date: %v %v", d, ok)
	}
}
