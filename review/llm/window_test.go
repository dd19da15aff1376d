package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
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
