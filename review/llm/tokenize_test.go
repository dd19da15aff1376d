package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// llamaServer is a llama.cpp server whose /tokenize answers with answer
// for the content it is sent; props is its /props ("" answers 404).
func llamaServer(t *testing.T, props string, answer func(w http.ResponseWriter, content string)) (srv *httptest.Server, tokenized *atomic.Int32, conns *atomic.Int32) {
	t.Helper()
	tokenized, conns = &atomic.Int32{}, &atomic.Int32{}
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "GET /props":
			if props == "" {
				http.NotFound(w, r)
				return
			}
			_, _ = io.WriteString(w, props)
		case "POST /tokenize":
			tokenized.Add(1)
			var req map[string]any
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if req["add_special"] != false || req["with_pieces"] != nil || r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("X-Org") != "o" {
				http.Error(w, fmt.Sprintf("unexpected request %v %v", req, r.Header), http.StatusBadRequest)
				return
			}
			content, _ := req["content"].(string)
			answer(w, content)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, tokenized, conns
}

// perChar answers one token id a character.
func perChar(w http.ResponseWriter, content string) {
	ids := make([]int, 0, len(content))
	for _, r := range content {
		ids = append(ids, int(r))
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
}

const propsJSON = `{"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}`

func llamaConfig(srv *httptest.Server) ClientConfig {
	return ClientConfig{BaseURL: srv.URL + "/v1", APIKey: "k", Headers: map[string]string{"X-Org": "o"}}
}

func TestTokenizerCounts(t *testing.T) {
	srv, tokenized, conns := llamaServer(t, propsJSON, perChar)
	tok, err := FindTokenizer(context.Background(), llamaConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "a", "héllo, 世界", strings.Repeat("x", 100000)} {
		n, err := tok.Count(s)
		if err != nil || n != len([]rune(s)) {
			t.Errorf("Count(%.20q) = %d, %v; want %d", s, n, err, len([]rune(s)))
		}
	}
	if got := tokenized.Load(); got != 5 {
		t.Errorf("/tokenize asked %d times, want the probe and 4", got)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("%d connections, want one kept alive", got)
	}
}

// Newer servers may send each token as an object with its piece.
func TestTokenizerPieces(t *testing.T) {
	srv, _, _ := llamaServer(t, propsJSON, func(w http.ResponseWriter, content string) {
		var toks []map[string]any
		for i, r := range content {
			toks = append(toks, map[string]any{"id": i, "piece": string(r)})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"tokens": toks})
	})
	tok, err := FindTokenizer(context.Background(), llamaConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tok.Count("abc"); n != 3 || err != nil {
		t.Errorf("Count = %d, %v; want 3", n, err)
	}
}

// A server that is not llama.cpp is never sent a text to count, and one
// whose /tokenize fails the probe does not count.
func TestFindTokenizerRefuses(t *testing.T) {
	for _, c := range []struct {
		name, props string
		answer      func(w http.ResponseWriter, content string)
		asked       int32
		reason      string
	}{
		{"no props", "", perChar, 0, "GET /props answered HTTP 404 Not Found: it is not a llama.cpp server"},
		{"other props", `{"version": "1"}`, perChar, 0, "GET /props does not answer as llama.cpp's"},
		{"props not json", `<html>`, perChar, 0, "GET /props does not answer as llama.cpp's"},
		{"no tokenize", propsJSON, func(w http.ResponseWriter, _ string) { http.NotFound(w, nil) }, 1, "POST /tokenize: HTTP 404 Not Found"},
		{"nothing counted", propsJSON, func(w http.ResponseWriter, _ string) { _, _ = io.WriteString(w, `{"tokens": []}`) }, 1, "counted no tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, tokenized, _ := llamaServer(t, c.props, c.answer)
			tok, err := FindTokenizer(context.Background(), llamaConfig(srv))
			var te *TokenizerError
			if tok != nil || !errors.As(err, &te) || !strings.Contains(err.Error(), c.reason) || te.URL != srv.URL {
				t.Errorf("got %v, %v; want a TokenizerError for %s saying %q", tok, err, srv.URL, c.reason)
			}
			if got := tokenized.Load(); got != c.asked {
				t.Errorf("/tokenize asked %d times, want %d", got, c.asked)
			}
		})
	}
	if _, err := FindTokenizer(context.Background(), ClientConfig{BaseURL: "unix:///tmp/x"}); err == nil {
		t.Error("a URL that is not http(s) counts")
	}
}

// Every way a count can fail is an error, and a short one: the counter
// then counts with tiktoken.
func TestTokenizerErrors(t *testing.T) {
	var mode atomic.Value
	mode.Store("ok")
	srv, _, _ := llamaServer(t, propsJSON, func(w http.ResponseWriter, content string) {
		switch mode.Load() {
		case "ok":
			perChar(w, content)
		case "500":
			http.Error(w, `{"error": "busy"}`, http.StatusInternalServerError)
		case "not json":
			_, _ = io.WriteString(w, `{"tokens": [1, 2`)
		case "no tokens":
			_, _ = io.WriteString(w, `{"error": {"message": "no"}}`)
		case "oversize":
			// Far more than any count of content can take.
			_, _ = io.WriteString(w, `{"tokens": [`+strings.Repeat(`1,`, 1<<20)+`1]}`)
		case "slow":
			time.Sleep(300 * time.Millisecond)
			perChar(w, content)
		}
	})
	tok, err := FindTokenizer(context.Background(), llamaConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, want string }{
		{"500", "POST /tokenize: HTTP 500 Internal Server Error"},
		{"not json", `POST /tokenize: the answer is not {"tokens": [...]}`},
		{"no tokens", `POST /tokenize: the answer is not {"tokens": [...]}`},
		{"oversize", "POST /tokenize: an answer of more than 4128 bytes"},
		{"slow", "POST /tokenize: no answer within 100ms"},
	} {
		// Only the slow answer is timed: on a loaded machine the
		// others may take longer than it to arrive.
		tok.timeout = 10 * time.Second
		if c.mode == "slow" {
			tok.timeout = 100 * time.Millisecond
		}
		mode.Store(c.mode)
		n, err := tok.Count("a")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: Count = %d, %v; want %q", c.mode, n, err, c.want)
		}
	}
	mode.Store("ok")
	if n, err := tok.Count("ab"); n != 2 || err != nil {
		t.Errorf("after the failures, Count = %d, %v", n, err)
	}
}

// A run that ends ends its counts.
func TestTokenizerContext(t *testing.T) {
	srv, _, _ := llamaServer(t, propsJSON, perChar)
	ctx, cancel := context.WithCancel(context.Background())
	tok, err := FindTokenizer(ctx, llamaConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := tok.Count("a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Count after the run ended: %v", err)
	}
}
