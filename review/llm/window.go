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
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/internal/lazy"
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
var numCtx = lazy.Regexp(`(?m)^\s*num_ctx\s+(\d+)`)

// DiscoverWindow asks the server what context window it serves model
// with: vLLM's max_model_len and llama.cpp's n_ctx in /v1/models, then
// llama.cpp's /props and /slots, then Ollama's /api/show (num_ctx, else
// the model's context_length). Each probe goes only to a server that
// answers it (see Discover). ok is false when no server answered with one.
// Errors are never returned: a server without these endpoints is a
// server that cannot say.
func DiscoverWindow(ctx context.Context, cfg ClientConfig, model string) (w Window, ok bool) {
	d := Discover(ctx, cfg, model, true)
	return d.Window, d.WindowKnown
}

// Discovery is what a server said of itself beside chat completions.
type Discovery struct {
	// Window is the window it serves the model with; WindowKnown is
	// false when it told none (or was not asked).
	Window      Window
	WindowKnown bool
	// Parallel is how many requests it serves at once, 0 when it does
	// not say; ParallelSource says where it came from ("llama.cpp /props
	// total_slots").
	Parallel       int
	ParallelSource string
	// Hosted says the endpoint is a hosted API (not on this machine or
	// network, not llama.cpp, not on Ollama's port): it is asked nothing
	// beyond /v1/models.
	Hosted bool
}

// Discover asks the server cfg names what it says of itself: the window
// it serves model with (when window is set: the configuration does not
// know it) and how many requests it serves at once. A probe goes only to a
// server that answers it:
//
//   - GET /v1/models is OpenAI's own API: asked of any endpoint whose
//     window is not known, and of a local one (Local, or on Ollama's
//     port), with the key as a chat request carries it.
//   - llama.cpp's GET /props and GET /slots are asked of a local server,
//     or of one whose /v1/models answered as llama.cpp's (its entries'
//     meta), with the key: a llama.cpp server started with --api-key
//     wants it there, and it is the host the chat requests go to anyway.
//   - Ollama's POST /api/show is asked only of an Ollama-looking
//     server: its port is Ollama's 11434, or it is local and GET /
//     (asked without any credential) answers "Ollama is running". Ollama takes no key, so
//     neither probe carries the API key or a credential header.
//
// A hosted API (api.openai.com, a gateway on the internet) is thus asked
// /v1/models at most, and only for a model the table does not know.
func Discover(ctx context.Context, cfg ClientConfig, model string, window bool) Discovery {
	var d Discovery
	e, ok := serverOf(cfg)
	if !ok {
		return d
	}
	local := SelfHosted(e.base)
	// silent is set when a probe got no answer at all (no connection,
	// no answer in time): the server is asked nothing more, and the
	// chat request will say what is wrong.
	silent := false
	get := func(method, path string, body []byte, keyless bool) []byte {
		if silent {
			return nil
		}
		b, err := e.send(ctx, method, e.url(path, keyless), body, discoverTimeout, 4<<20, keyless)
		var status *statusError
		silent = err != nil && !errors.As(err, &status)
		return b
	}
	var models []byte
	if window || local {
		models = get(http.MethodGet, "/v1/models", nil, false)
	}
	llama := llamaModels(models)
	d.Hosted = !local && !llama
	if d.Hosted {
		if window {
			d.Window, d.WindowKnown = windowFromModels(models, model)
		}
		return d
	}
	// What the server was started with wins over what the model was
	// trained with: llama.cpp's /v1/models says n_ctx_train (often 32k or
	// more) while it serves the -c it was given, told by /props or
	// /slots. A prompt past the served window is cut or refused.
	trained, trainedOK := windowFromModels(models, model)
	if window && trainedOK && !trained.Trained {
		d.Window, d.WindowKnown = trained, true
		window = false
	}
	props := get(http.MethodGet, "/props", nil, false)
	d.Parallel, d.ParallelSource = parallelFromProps(props)
	if window {
		d.Window, d.WindowKnown = windowFromProps(props)
		window = !d.WindowKnown
	}
	if window || d.Parallel == 0 {
		slots := get(http.MethodGet, "/slots", nil, false)
		if d.Parallel == 0 {
			d.Parallel, d.ParallelSource = parallelFromSlots(slots)
		}
		if window {
			d.Window, d.WindowKnown = windowFromSlots(slots)
			window = !d.WindowKnown
		}
	}
	if window && trainedOK {
		d.Window, d.WindowKnown = trained, true
		window = false
	}
	if window && !llama && ollamaLooking(e, get) {
		body, _ := json.Marshal(map[string]string{"model": model})
		d.Window, d.WindowKnown = windowFromOllama(get(http.MethodPost, "/api/show", body, true))
	}
	return d
}

// OllamaPort is the port Ollama listens on unless told otherwise.
const OllamaPort = "11434"

// ollamaLooking reports whether the server is Ollama's: on its port, or
// answering GET / as Ollama does ("Ollama is running"), asked without
// credentials.
func ollamaLooking(e *server, get func(method, path string, body []byte, keyless bool) []byte) bool {
	if ollamaPort(e.base) {
		return true
	}
	return strings.Contains(string(get(http.MethodGet, "/", nil, true)), "Ollama is running")
}

// SelfHosted reports whether a base URL names a server run by its user
// rather than a hosted API: one on this machine or network (Local), or
// on Ollama's port. Such a server is asked what it serves (Discover).
func SelfHosted(baseURL string) bool {
	return Local(baseURL) || ollamaPort(strings.TrimSpace(baseURL))
}

// ollamaPort reports whether base names Ollama's port.
func ollamaPort(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Port() == OllamaPort
}

// llamaModels reports whether a /v1/models list is llama.cpp's: its
// entries carry meta (n_ctx_train…), or are owned by llamacpp.
func llamaModels(body []byte) bool {
	var list struct {
		Data []struct {
			OwnedBy string          `json:"owned_by"`
			Meta    json.RawMessage `json:"meta"`
		} `json:"data"`
	}
	if len(body) == 0 || json.Unmarshal(body, &list) != nil {
		return false
	}
	for _, m := range list.Data {
		if len(m.Meta) > 0 && string(m.Meta) != "null" || strings.EqualFold(m.OwnedBy, "llamacpp") {
			return true
		}
	}
	return false
}

// maxParallel bounds the parallelism a server may claim: past it a
// number is not a count of slots.
const maxParallel = 256

// parallelFromProps reads llama.cpp's /props total_slots: the requests
// it serves at once (its -np).
func parallelFromProps(body []byte) (int, string) {
	var p struct {
		TotalSlots int `json:"total_slots"`
	}
	if len(body) == 0 || json.Unmarshal(body, &p) != nil || p.TotalSlots <= 0 {
		return 0, ""
	}
	return min(p.TotalSlots, maxParallel), "llama.cpp /props total_slots"
}

// parallelFromSlots counts llama.cpp's /slots.
func parallelFromSlots(body []byte) (int, string) {
	var slots []json.RawMessage
	if len(body) == 0 || json.Unmarshal(body, &slots) != nil || len(slots) == 0 {
		return 0, ""
	}
	return min(len(slots), maxParallel), "llama.cpp /slots"
}

// server is the server cfg names, for the requests beside chat
// completions: discovery and counting.
type server struct {
	cfg ClientConfig
	// base is the API root as given ("…/v1"), root the server's own,
	// without "/v1", where llama.cpp and Ollama serve theirs; both
	// without user info or query, which at names the resources with.
	base, root string
	u          *url.URL
	hc         *http.Client
}

// at is the URL of path under the server's root ("/props"), or under
// the API root for "/v1/…" paths, with the base URL's user info and
// query: a gateway's credentials travel in them.
func (e *server) at(path string) string {
	return e.url(path, false)
}

// url is at, and with keyless without the user info and query.
func (e *server) url(path string, keyless bool) string {
	u := *e.u
	if keyless {
		u.User, u.RawQuery = nil, ""
	}
	u.Path = strings.TrimSuffix(u.Path, "/v1") + path
	if rest, ok := strings.CutPrefix(path, "/v1/"); ok {
		u.Path = e.u.Path + "/" + rest
	}
	u.RawPath = ""
	return u.String()
}

// serverOf is the server cfg names; false when its URL is not an http(s)
// one.
func serverOf(cfg ClientConfig) (*server, bool) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions")
	u.RawPath, u.Fragment = "", ""
	bare := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	base := bare.String()
	return &server{cfg: cfg, base: base, root: strings.TrimSuffix(base, "/v1"), u: u, hc: keepCredentialsHome(cfg.HTTPClient, u.Host)}, true
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
	return e.send(ctx, method, rawURL, body, timeout, limit, false)
}

// send is do, and with keyless without the API key or any credential
// header (CredentialHeader): for a probe of a server that takes none
// (whose URL, server.url, carries none either).
func (e *server) send(ctx context.Context, method, rawURL string, body []byte, timeout time.Duration, limit int64, keyless bool) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.cfg.Headers {
		if !keyless || !CredentialHeader(k) {
			req.Header.Set(k, v)
		}
	}
	if !keyless && e.cfg.APIKey != "" && req.Header.Get("Authorization") == "" {
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
	if m := numCtx().FindStringSubmatch(show.Parameters); m != nil {
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
