package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What a llama.cpp server serves (/props, else /slots) wins over what its
// model was trained with (/v1/models meta.n_ctx_train), which is taken
// only when the server says nothing else, with a warning.
func TestDiscoverWindowServed(t *testing.T) {
	const trained = `{"data": [{"id": "m", "meta": {"n_ctx_train": 32768}}]}`
	for _, c := range []struct {
		name   string
		paths  map[string]string
		tokens int
		source string
		warned bool
	}{
		{"props default", map[string]string{"/v1/models": trained, "/props": `{"default_generation_settings": {"n_ctx": 8192}}`},
			8192, "llama.cpp /props default_generation_settings.n_ctx", false},
		{"props top", map[string]string{"/v1/models": trained, "/props": `{"n_ctx": 6144}`}, 6144, "llama.cpp /props n_ctx", false},
		{"slots", map[string]string{"/v1/models": trained, "/slots": `[{"n_ctx": 4096}, {"n_ctx": 2048}]`}, 2048, "llama.cpp /slots n_ctx", false},
		{"props before slots", map[string]string{"/v1/models": trained, "/props": `{"n_ctx": 6144}`, "/slots": `[{"n_ctx": 4096}]`}, 6144, "llama.cpp /props n_ctx", false},
		{"trained only", map[string]string{"/v1/models": trained}, 32768, "llama.cpp /v1/models n_ctx_train", true},
		{"vllm", map[string]string{"/v1/models": `{"data": [{"id": "m", "max_model_len": 16384}]}`, "/props": `{"n_ctx": 1}`}, 16384, "vLLM /v1/models max_model_len", false},
		{"props alone", map[string]string{"/props": `{"n_ctx": 4096}`}, 4096, "llama.cpp /props n_ctx", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := c.paths[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			w, ok := DiscoverWindow(context.Background(), ClientConfig{BaseURL: srv.URL + "/v1"}, "m")
			if !ok || w.Tokens != c.tokens || w.Source != c.source || (w.Warning != "") != c.warned {
				t.Errorf("got %+v, %v; want %d from %s (warned %v)", w, ok, c.tokens, c.source, c.warned)
			}
		})
	}
}

// recorder answers every request from paths (404 otherwise) and notes
// each, with the credentials it carried.
type recorder struct {
	paths map[string]string
	got   []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	line := req.Method + " " + req.URL.Path
	if req.Header.Get("Authorization") != "" {
		line += " +key"
	}
	if req.Header.Get("X-Api-Key") != "" {
		line += " +x-api-key"
	}
	if req.Header.Get("X-Route") != "" {
		line += " +route"
	}
	if req.URL.User != nil || req.URL.RawQuery != "" {
		line += " +url-credentials"
	}
	r.got = append(r.got, line)
	if r.paths[req.URL.Path] == "!" {
		return nil, errors.New("connection reset")
	}
	rec := httptest.NewRecorder()
	if body, ok := r.paths[req.URL.Path]; ok {
		_, _ = rec.WriteString(body)
	} else {
		rec.WriteHeader(http.StatusNotFound)
	}
	return rec.Result(), nil
}

// Discovery probes go only to servers that answer them, and never carry
// a key they do not need: a hosted API is asked /v1/models at most (and
// nothing when the window is known), with the key as any request of its
// API; llama.cpp's /props and /slots go to a local server; Ollama's
// /api/show only to an Ollama-looking one (port 11434, or "Ollama is
// running" at its root), without the key or a credential header.
func TestDiscoverProbes(t *testing.T) {
	const show = `{"parameters": "num_ctx 24576"}`
	headers := map[string]string{"X-Api-Key": "gateway-secret", "X-Route": "a"}
	for _, c := range []struct {
		name   string
		base   string
		window bool
		paths  map[string]string
		want   string
		jobs   int
	}{
		{"hosted, window known", "https://api.openai.com/v1", false, nil, "", 0},
		{"hosted, window asked", "https://api.openai.com/v1", true, map[string]string{"/api/show": show, "/props": `{"total_slots": 2}`},
			"GET /v1/models +key +x-api-key +route", 0},
		{"hosted llama.cpp", "https://llm.example.com/v1", false, nil, "", 0},
		{"remote llama.cpp by its models", "https://llm.example.com/v1", true, map[string]string{"/v1/models": `{"data": [{"id": "m", "meta": {"n_ctx_train": 4096}}]}`, "/props": `{"total_slots": 2, "n_ctx": 2048}`},
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route", 2},
		{"local, not Ollama", "http://127.0.0.1:8080/v1", true, nil,
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route, GET /slots +key +x-api-key +route, GET / +route", 0},
		{"local, Ollama at its root", "http://127.0.0.1:8080/v1", true, map[string]string{"/": "Ollama is running", "/api/show": show},
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route, GET /slots +key +x-api-key +route, GET / +route, POST /api/show +route", 0},
		{"Ollama's port", "http://localhost:11434/v1", true, map[string]string{"/api/show": show},
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route, GET /slots +key +x-api-key +route, POST /api/show +route", 0},
		{"Ollama's port, on another host", "http://gpu.example.com:11434/v1", true, map[string]string{"/api/show": show},
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route, GET /slots +key +x-api-key +route, POST /api/show +route", 0},
		{"credentials in the URL", "http://u:p@localhost:11434/v1?api-key=k", true, map[string]string{"/api/show": show},
			"GET /v1/models +key +x-api-key +route +url-credentials, GET /props +key +x-api-key +route +url-credentials, GET /slots +key +x-api-key +route +url-credentials, POST /api/show +route", 0},
		{"a server that does not answer is asked no more", "http://127.0.0.1:8080/v1", true, map[string]string{"/v1/models": "!"},
			"GET /v1/models +key +x-api-key +route", 0},
		{"local, jobs only", "http://127.0.0.1:8080/v1", false, map[string]string{"/props": `{"total_slots": 1}`},
			"GET /v1/models +key +x-api-key +route, GET /props +key +x-api-key +route", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{paths: c.paths}
			d := Discover(context.Background(), ClientConfig{BaseURL: c.base, APIKey: "sk-test", Headers: headers, HTTPClient: &http.Client{Transport: rec}}, "m", c.window)
			if got := strings.Join(rec.got, ", "); got != c.want {
				t.Errorf("asked\n  %s\nwant\n  %s", got, c.want)
			}
			if d.Parallel != c.jobs {
				t.Errorf("parallel %d, want %d", d.Parallel, c.jobs)
			}
		})
	}
}
