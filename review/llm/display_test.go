package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDisplayURL: whatever form a URL takes, no credential in it is shown.
func TestDisplayURL(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://user:SECRET@gw.example:8080/v1", "http://gw.example:8080/v1"},
		{"https://SECRET@gw.example/v1", "https://gw.example/v1"},
		{"https://gw.example/v1?api-key=SECRET&api-version=2024", "https://gw.example/v1"},
		{"https://gw.example/v1?key=SECRET", "https://gw.example/v1"},
		{"https://gw.example/v1?token=SECRET#frag", "https://gw.example/v1"},
		{"https://gw.example/v1?access_token=SECRET", "https://gw.example/v1"},
		{"https://blob.example/v1?sv=1&sig=SECRET", "https://blob.example/v1"},
		{" http://u:SECRET@localhost:11434/v1 ", "http://localhost:11434/v1"},
		{"localhost:11434/v1", "localhost:11434/v1"},
		{"user:SECRET@gw.example/v1", "user:gw.example/v1"},
		{"ftp://u:SECRET@host/v1?api-key=SECRET", "ftp://host/v1"},
		{"gw.example/v1?api-key=SECRET", "gw.example/v1"},
		{"u:SECRET@gw.example", "u:gw.example"},
		{"http://u:SECRET@[::1", "(unparsable URL)"},
	}
	for _, tt := range tests {
		got := DisplayURL(tt.raw)
		if got != tt.want {
			t.Errorf("DisplayURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("DisplayURL(%q) shows a credential: %q", tt.raw, got)
		}
	}
}

// TestRedirectKeepsCredentials: a model endpoint that redirects to another
// host (a 307 keeps the method and body) is followed, but neither the API
// key, a gateway's credential header nor the URL it left (in Referer, with
// its query) goes there; other headers do.
func TestRedirectKeepsCredentials(t *testing.T) {
	var got http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	c := newTestClient(api.URL+"/v1?api-key=q-SECRET", nil, func(c *ClientConfig) {
		c.Headers = map[string]string{"Api-Key": "gw-SECRET", "X-Route": "eu"}
		c.HTTPClient = &http.Client{}
	})
	r, err := c.Complete(context.Background(), testRequest())
	if err != nil || r.Message.Content != "ok" {
		t.Fatalf("%v, %+v", err, r)
	}
	if got.Get("Authorization") != "" || got.Get("Api-Key") != "" || got.Get("Referer") != "" || got.Get("X-Route") != "eu" {
		t.Errorf("the other host got %v", got)
	}
	if c.cfg.HTTPClient.CheckRedirect != nil {
		t.Errorf("the caller's client was changed")
	}
}
