package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/tools"
)

// TestFallbackChain drives the forced tool choice down the chain, drops
// strict, and learns each refusal once: the next request goes out in the
// accepted form at once.
func TestFallbackChain(t *testing.T) {
	srv := reviewtest.Serve(t, `[
		{"status":400,"error":{"message":"Invalid tool_choice type: 'object'. Supported string values: none, auto, required"}},
		{"status":400,"error":{"message":"tool_choice required is not supported"}},
		{"status":400,"error":{"message":"Unsupported field 'strict'"}},
		{"content":"ok"},
		{"content":"again"}]`)
	c := NewClient(ClientConfig{BaseURL: srv.URL, MaxAttempts: 1})
	req := Request{
		Model:      "gpt-4o",
		Messages:   []conversation.Message{{Role: conversation.User, Content: "hi"}},
		Tools:      []tools.Definition{{Name: "submit_review", Strict: true}},
		ToolChoice: "submit_review",
	}
	r, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fb := range r.Fallbacks {
		got = append(got, fb.Feature+":"+fb.From+">"+fb.To)
	}
	if want := "tool_choice:function>required tool_choice:required>auto strict:strict>not strict"; strings.Join(got, " ") != want {
		t.Errorf("fallbacks %q, want %q", got, want)
	}
	if r.ToolChoice != "auto" || strings.Contains(string(r.Request), `"strict"`) {
		t.Errorf("sent choice %q, body %s", r.ToolChoice, r.Request)
	}
	r, err = c.Complete(context.Background(), req)
	if err != nil || len(r.Fallbacks) != 0 || r.Attempts != 1 || r.Message.Content != "again" {
		t.Fatalf("second request: %+v, %v", r, err)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}

// TestNoFallbackForOtherErrors keeps a 400 about something else an error.
func TestNoFallbackForOtherErrors(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":400,"error":{"message":"messages: field required"}}]`)
	c := NewClient(ClientConfig{BaseURL: srv.URL, MaxAttempts: 1})
	_, err := c.Complete(context.Background(), Request{Model: "m", Messages: []conversation.Message{{Role: conversation.User, Content: "hi"}},
		Tools: []tools.Definition{{Name: "t"}}, ToolChoice: "t"})
	if err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}

// FuzzWindowBodies feeds the discovery decoders what a server may answer:
// never a panic, never a window below one token.
func FuzzWindowBodies(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"id":"m","max_model_len":32768}]}`,
		`{"data":[{"id":"m","meta":{"n_ctx":4096,"n_ctx_train":131072}}]}`,
		`{"parameters":"num_ctx 8192","model_info":{"llama.context_length":131072}}`,
		`{"model_info":{"x.context_length":"big"}}`,
		`{"default_generation_settings":{"n_ctx":-1}}`,
		`{"data":null}`, `[]`, `null`, `{`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, w := range []func() (Window, bool){
			func() (Window, bool) { return windowFromModels(body, "m") },
			func() (Window, bool) { return windowFromOllama(body) },
			func() (Window, bool) { return windowFromProps(body) },
		} {
			if got, ok := w(); ok && got.Tokens < 1 {
				t.Fatalf("window %d from %q", got.Tokens, body)
			}
		}
	})
}

// TestBothLimitFieldsRefused ends with the error rather than switching
// fields forever.
func TestBothLimitFieldsRefused(t *testing.T) {
	srv := reviewtest.Serve(t, `{"steps":[],"fallback":{"reject":{"max_":"Unsupported parameter: 'max_tokens' and 'max_completion_tokens' are not supported"}}}`)
	c := NewClient(ClientConfig{BaseURL: srv.URL, MaxAttempts: 1})
	_, err := c.Complete(context.Background(), Request{Model: "m", MaxTokens: 10, Messages: []conversation.Message{{Role: conversation.User, Content: "hi"}}})
	if err == nil || len(srv.Requests()) != 2 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}
