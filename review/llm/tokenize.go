package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// TokenizerName names the count a Tokenizer makes, wherever counts are
// said to be the server's.
const TokenizerName = "llama.cpp /tokenize"

// tokenizeTimeout bounds one count, and a second more each MiB of text:
// llama.cpp tokenizes megabytes a second, so a server that takes longer
// is busy or gone, and the count falls back to tiktoken.
const tokenizeTimeout = 5 * time.Second

// tokenizeProbe is the text counted to learn that a server counts.
const tokenizeProbe = "func main() {}"

// Tokenizer counts tokens as a llama.cpp server does, with the model's
// own tokenizer: POST /tokenize. Its counts are what the server holds a
// prompt to, where the tiktoken encoding of a model whose tokenizer we
// lack only approximates them.
type Tokenizer struct {
	srv *server
	// timeout is tokenizeTimeout; tests shorten it.
	timeout time.Duration
	// ctx is the run's: its counts end with it. Counter's Count takes
	// no context, so the tokenizer keeps the one it was found with.
	ctx context.Context
}

// TokenizerError says why the server cannot count tokens.
type TokenizerError struct {
	// URL is the server's root, as it may be shown; Setting names what
	// set it (ClientConfig.BaseURLFrom).
	URL, Setting string
	Reason       string
}

func (e *TokenizerError) Error() string {
	return fmt.Sprintf("the server at %s cannot count tokens: %s", e.URL, e.Reason)
}

// FindTokenizer asks the server cfg names whether it counts tokens: its
// /props must answer as llama.cpp's does, and /tokenize must then count a
// probe. No text is sent to /tokenize of a server that is not llama.cpp:
// OpenAI and the others are never asked. The error is a TokenizerError.
// ctx bounds the tokenizer's counts as well as the finding.
func FindTokenizer(ctx context.Context, cfg ClientConfig) (*Tokenizer, error) {
	srv, ok := serverOf(cfg)
	if !ok {
		return nil, &TokenizerError{URL: DisplayURL(cfg.BaseURL), Setting: cfg.BaseURLFrom, Reason: "its URL is not an http(s) one"}
	}
	fail := func(format string, args ...any) (*Tokenizer, error) {
		return nil, &TokenizerError{URL: DisplayURL(srv.root), Setting: cfg.BaseURLFrom, Reason: fmt.Sprintf(format, args...)}
	}
	props, err := srv.do(ctx, http.MethodGet, srv.at("/props"), nil, discoverTimeout, 4<<20)
	var status *statusError
	switch {
	case errors.As(err, &status):
		return fail("GET /props answered %v: it is not a llama.cpp server", err)
	case err != nil:
		return fail("GET /props: %v", err)
	}
	if !llamaProps(props) {
		return fail("GET /props does not answer as llama.cpp's: it is not a llama.cpp server")
	}
	t := &Tokenizer{srv: srv, ctx: ctx, timeout: tokenizeTimeout}
	n, err := t.Count(tokenizeProbe)
	if err != nil {
		return fail("%v", err)
	}
	if n == 0 {
		return fail("POST /tokenize counted no tokens in %q", tokenizeProbe)
	}
	return t, nil
}

// llamaProps reports whether body is llama.cpp's /props: an object with
// the settings its slots start with, or their number.
func llamaProps(body []byte) bool {
	var p map[string]json.RawMessage
	if json.Unmarshal(body, &p) != nil {
		return false
	}
	for _, k := range []string{"default_generation_settings", "total_slots", "n_ctx"} {
		if _, ok := p[k]; ok {
			return true
		}
	}
	return false
}

// Count counts the tokens of s as the server does, without the special
// tokens (BOS) it adds to a prompt: messages are counted one text at a
// time, and the framing is counted apart. The answer is bounded: ids, or
// objects with their pieces from a server that sends them anyway, at
// most 32 bytes a byte of s.
func (t *Tokenizer) Count(s string) (int, error) {
	body, err := json.Marshal(struct {
		Content    string `json:"content"`
		AddSpecial bool   `json:"add_special"`
	}{s, false})
	if err != nil {
		return 0, err
	}
	timeout := t.timeout + time.Duration(len(s)>>20)*time.Second
	b, err := t.srv.do(t.ctx, http.MethodPost, t.srv.at("/tokenize"), body, timeout, 4<<10+32*int64(len(s)))
	if err != nil {
		return 0, fmt.Errorf("POST /tokenize: %w", err)
	}
	var a struct {
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Tokens == nil {
		return 0, errors.New(`POST /tokenize: the answer is not {"tokens": [...]}`)
	}
	return len(a.Tokens), nil
}
