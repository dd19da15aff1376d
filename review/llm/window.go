package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Window is a context window the server reported for a model.
type Window struct {
	Tokens int
	// Source says where it came from, e.g. "vLLM /v1/models max_model_len".
	Source string
	// Warning, if set, is what the user should know about it (Ollama
	// serving fewer tokens than the model has unless told otherwise).
	Warning string
	// Trained says Tokens is the window the model was trained with, not
	// the one the server serves: asked only when nothing tells the
	// latter.
	Trained bool `json:"-"`
	// LlamaCpp says the server told it as llama.cpp does: it may count
	// tokens too (FindTokenizer).
	LlamaCpp bool `json:"-"`
}

// discoverTimeout bounds each discovery request: a server that does not
// answer at once is asked the model's window no further.
const discoverTimeout = 5 * time.Second

// numCtx finds num_ctx in Ollama's parameters text ("num_ctx  32768").
var numCtx = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)`)

// DiscoverWindow asks the server what context window it serves model
// with: vLLM's max_model_len and llama.cpp's n_ctx in /v1/models, then
// Ollama's /api/show (num_ctx, else the model's context_length). ok is
// false when no server answered with one. Errors are never returned: a
// server without these endpoints is a server that cannot say.
func DiscoverWindow(ctx context.Context, cfg ClientConfig, model string) (w Window, ok bool) {
	e, ok := serverOf(cfg)
	if !ok {
		return Window{}, false
	}
	get := func(method, rawURL string, body []byte) []byte {
		b, _ := e.do(ctx, method, rawURL, body, discoverTimeout, 4<<20)
		return b
	}
	base, root := e.base, e.root
	// What the server was started with wins over what the model was
	// trained with: llama.cpp's /v1/models says n_ctx_train (often 32k or
	// more) while it serves the -c it was given, told by /props or
	// /slots. A prompt past the served window is cut or refused.
	trained, ok := windowFromModels(get(http.MethodGet, base+"/models", nil), model)
	if ok && !trained.Trained {
		return trained, true
	}
	if w, ok := windowFromProps(get(http.MethodGet, root+"/props", nil)); ok {
		return w, true
	}
	if w, ok := windowFromSlots(get(http.MethodGet, root+"/slots", nil)); ok {
		return w, true
	}
	if ok {
		return trained, true
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if w, ok := windowFromOllama(get(http.MethodPost, root+"/api/show", body)); ok {
		return w, true
	}
	return Window{}, false
}

// server is the server cfg names, for the requests beside chat
// completions: discovery and counting.
type server struct {
	cfg ClientConfig
	// base is the API root as given ("…/v1"), root the server's own,
	// without "/v1", where llama.cpp and Ollama serve theirs.
	base, root string
	hc         *http.Client
}

// serverOf is the server cfg names; false when its URL is not an http(s)
// one.
func serverOf(cfg ClientConfig) (*server, bool) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	base = strings.TrimSuffix(base, "/chat/completions")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return &server{cfg: cfg, base: base, root: strings.TrimSuffix(base, "/v1"), hc: keepCredentialsHome(cfg.HTTPClient, u.Host)}, true
}

// statusError is a server's answer other than 200 OK.
type statusError struct{ status int }

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
}

// do sends one request with the configured headers and key, within
// timeout, and returns the body of a 200 answer: at most limit bytes,
// an error past them.
func (e *server) do(ctx context.Context, method, rawURL string, body []byte, timeout time.Duration, limit int64) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	if e.cfg.APIKey != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return nil, fmt.Errorf("no answer within %s", timeout)
		}
		// Without the URL, which may hold a gateway's credentials.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Read, for the connection to be kept.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &statusError{resp.StatusCode}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return nil, fmt.Errorf("no whole answer within %s", timeout)
		}
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("an answer of more than %d bytes", limit)
	}
	return b, nil
}

// windowFromModels reads a /v1/models list: vLLM's max_model_len, or
// llama.cpp's meta.n_ctx / n_ctx_train.
func windowFromModels(body []byte, model string) (Window, bool) {
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        *struct {
				NCtx      int `json:"n_ctx"`
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if len(body) == 0 || json.Unmarshal(body, &list) != nil {
		return Window{}, false
	}
	for _, m := range list.Data {
		if len(list.Data) > 1 && m.ID != model {
			continue
		}
		switch {
		case m.MaxModelLen > 0:
			return Window{Tokens: m.MaxModelLen, Source: "vLLM /v1/models max_model_len"}, true
		case m.Meta != nil && m.Meta.NCtx > 0:
			return Window{Tokens: m.Meta.NCtx, Source: "llama.cpp /v1/models n_ctx", LlamaCpp: true}, true
		case m.Meta != nil && m.Meta.NCtxTrain > 0:
			return Window{Tokens: m.Meta.NCtxTrain, Source: "llama.cpp /v1/models n_ctx_train", Trained: true, LlamaCpp: true,
				Warning: "the server does not say the window it serves (/props, /slots); the model's training window may be more than it was started with (-c)"}, true
		}
	}
	return Window{}, false
}

// windowFromOllama reads /api/show: the num_ctx parameter is what the
// model is served with; without it Ollama serves OLLAMA_CONTEXT_LENGTH
// (4096 by default), which the API does not tell, so the model's own
// context_length is used with a warning.
func windowFromOllama(body []byte) (Window, bool) {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if len(body) == 0 || json.Unmarshal(body, &show) != nil {
		return Window{}, false
	}
	if m := numCtx.FindStringSubmatch(show.Parameters); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return Window{Tokens: n, Source: "Ollama /api/show num_ctx"}, true
		}
	}
	for k, v := range show.ModelInfo {
		if !strings.HasSuffix(k, ".context_length") {
			continue
		}
		var n int
		if json.Unmarshal(v, &n) == nil && n > 0 {
			return Window{Tokens: n, Source: "Ollama /api/show " + k,
				Warning: fmt.Sprintf("Ollama serves %d tokens only if started with OLLAMA_CONTEXT_LENGTH=%d (or the model's num_ctx set); by default it serves 4096 and cuts longer prompts silently", n, n)}, true
		}
	}
	return Window{}, false
}

// windowFromProps reads llama.cpp's /props: default_generation_settings.n_ctx,
// or n_ctx at the top in other versions.
func windowFromProps(body []byte) (Window, bool) {
	var p struct {
		Default struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx int `json:"n_ctx"`
	}
	if len(body) == 0 || json.Unmarshal(body, &p) != nil {
		return Window{}, false
	}
	switch {
	case p.Default.NCtx > 0:
		return Window{Tokens: p.Default.NCtx, Source: "llama.cpp /props default_generation_settings.n_ctx", LlamaCpp: true}, true
	case p.NCtx > 0:
		return Window{Tokens: p.NCtx, Source: "llama.cpp /props n_ctx", LlamaCpp: true}, true
	}
	return Window{}, false
}

// windowFromSlots reads llama.cpp's /slots: each slot's n_ctx, the window
// a request is served with (the server's -c divided among its slots).
func windowFromSlots(body []byte) (Window, bool) {
	var slots []struct {
		NCtx int `json:"n_ctx"`
	}
	if len(body) == 0 || json.Unmarshal(body, &slots) != nil {
		return Window{}, false
	}
	n := 0
	for _, s := range slots {
		if s.NCtx > 0 && (n == 0 || s.NCtx < n) {
			n = s.NCtx
		}
	}
	if n == 0 {
		return Window{}, false
	}
	return Window{Tokens: n, Source: "llama.cpp /slots n_ctx", LlamaCpp: true}, true
}
