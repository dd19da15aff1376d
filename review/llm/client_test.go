package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/tools"
)

const testKey = "sk-test-0123456789abcdef"

// retryLog records OnRetry calls.
type retryLog struct {
	mu    sync.Mutex
	calls []string
	waits []time.Duration
}

func (l *retryLog) hook(attempt int, wait time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, fmt.Sprintf("%d: %v", attempt, err))
	l.waits = append(l.waits, wait)
}

// newTestClient is a client for srv with fast retries.
func newTestClient(url string, log *retryLog, edit ...func(*ClientConfig)) *Client {
	cfg := ClientConfig{
		BaseURL:     url,
		APIKey:      testKey,
		Timeout:     5 * time.Second,
		MaxAttempts: 4,
		BaseDelay:   time.Millisecond,
		MaxDelay:    5 * time.Millisecond,
	}
	if log != nil {
		cfg.OnRetry = log.hook
	}
	for _, e := range edit {
		e(&cfg)
	}
	return NewClient(cfg)
}

func testRequest() Request {
	return Request{
		Model:       "gpt-4o-mini",
		Messages:    toolLoop(),
		Tools:       []tools.Definition{readFile, listFiles},
		Temperature: ptr[float32](0),
		MaxTokens:   1000,
	}
}

// noKey fails if the API key shows anywhere in what a caller could
// record or print.
func noKey(t *testing.T, r *Reply, err error) {
	t.Helper()
	if r != nil && (bytes.Contains(r.Request, []byte(testKey)) || bytes.Contains(r.Response, []byte(testKey))) {
		t.Error("API key in the reply")
	}
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("API key in the error: %v", err)
	}
}

func TestComplete(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}],"usage":{"prompt_tokens":300,"completion_tokens":20,"cached_tokens":256}}]`)
	c := newTestClient(srv.URL, nil)
	r, err := c.Complete(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	noKey(t, r, err)
	if r.Attempts != 1 || r.FinishReason != "tool_calls" {
		t.Errorf("attempts %d, finish %q", r.Attempts, r.FinishReason)
	}
	if r.Usage != (Usage{Prompt: 300, Completion: 20, Cached: 256, Total: 320}) {
		t.Errorf("usage = %+v", r.Usage)
	}
	if len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0] != (conversation.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"main.go"}`}) {
		t.Errorf("message = %+v", r.Message)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	if !bytes.Equal(got[0].Body, r.Request) {
		t.Errorf("Reply.Request differs from what the server received:\n%s\n%s", r.Request, got[0].Body)
	}
	if !bytes.Contains(r.Request, []byte(`"temperature":0`)) {
		t.Errorf("temperature 0 not sent: %s", r.Request)
	}
	if !bytes.Contains(r.Response, []byte(`"id":"call_1"`)) {
		t.Errorf("Reply.Response = %s", r.Response)
	}
	h := got[0].Header
	if h.Get("Authorization") != "Bearer "+testKey || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", h)
	}
}

func TestSendHook(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":503},{"content":"ok"}]`)
	c := newTestClient(srv.URL, nil)
	var sent [][]byte
	ctx := WithSendHook(context.Background(), func(body []byte) {
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("hook called after %d requests were sent", n)
		}
		sent = append(sent, bytes.Clone(body))
	})
	r, err := c.Complete(ctx, testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 || !bytes.Equal(sent[0], r.Request) || r.Attempts != 2 {
		t.Errorf("hook saw %d bodies over %d attempts", len(sent), r.Attempts)
	}
}

func TestCompleteWithoutKey(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"content":"fine"}]`)
	c := newTestClient(srv.URL, nil, func(c *ClientConfig) { c.APIKey = "" })
	if _, err := c.Complete(context.Background(), testRequest()); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header; h.Get("Authorization") != "" {
		t.Errorf("Authorization sent without a key: %q", h.Get("Authorization"))
	}
}

func TestReasoningModelOnTheWire(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"content":"a"},{"content":"b"}]`)
	c := newTestClient(srv.URL, nil)
	for _, model := range []string{"gpt-5", "o3"} {
		req := testRequest()
		req.Model = model
		r, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(r.Request, []byte(`"max_completion_tokens":1000`)) ||
			bytes.Contains(r.Request, []byte(`"max_tokens"`)) || bytes.Contains(r.Request, []byte(`"temperature"`)) {
			t.Errorf("%s: body = %s", model, r.Request)
		}
	}
}

func TestRetried(t *testing.T) {
	tests := []struct {
		name   string
		script string
		waits  []time.Duration // nil: any backoff within MaxDelay
	}{
		{name: "500 then 200", script: `[{"status":500,"error":{"message":"boom","type":"server_error"}},{"content":"ok"}]`},
		{name: "429 Retry-After 0", script: `[{"status":429,"headers":{"Retry-After":"0"},"error":{"message":"slow down","code":"rate_limit_exceeded"}},{"content":"ok"}]`, waits: []time.Duration{0}},
		{name: "retry-after-ms", script: `[{"status":429,"headers":{"retry-after-ms":"20"},"error":{"message":"slow down"}},{"content":"ok"}]`, waits: []time.Duration{20 * time.Millisecond}},
		{name: "502 html, 503, 504", script: `[{"status":502,"raw":"<html>Bad Gateway</html>"},{"status":503},{"status":504,"raw":""},{"content":"ok"}]`},
		{name: "408", script: `[{"status":408},{"content":"ok"}]`},
		{name: "too long Retry-After falls back to backoff", script: `[{"status":503,"headers":{"Retry-After":"3600"}},{"content":"ok"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tt.script)
			var log retryLog
			c := newTestClient(srv.URL, &log)
			start := time.Now()
			r, err := c.Complete(context.Background(), testRequest())
			if err != nil {
				t.Fatal(err)
			}
			noKey(t, r, err)
			// The waits below are checked one by one; this only guards
			// against a wait left out of them, far above a busy machine's.
			if time.Since(start) > 30*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			reqs := srv.Requests()
			if r.Attempts != len(reqs) || r.Attempts < 2 || len(log.calls) != r.Attempts-1 {
				t.Errorf("attempts %d, requests %d, retries %d", r.Attempts, len(reqs), len(log.calls))
			}
			for _, q := range reqs {
				if !bytes.Equal(q.Body, r.Request) {
					t.Errorf("request %d differs from the first:\n%s\n%s", q.N, q.Body, r.Request)
				}
			}
			for i, w := range log.waits {
				if tt.waits != nil && w != tt.waits[i] {
					t.Errorf("wait %d = %s, want %s", i+1, w, tt.waits[i])
				}
				if tt.waits == nil && (w < 0 || w > 5*time.Millisecond) {
					t.Errorf("wait %d = %s, outside the backoff", i+1, w)
				}
			}
			if r.Message.Content != "ok" {
				t.Errorf("content = %q", r.Message.Content)
			}
		})
	}
}

func TestNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		status  int
		want    []string
		context bool
	}{
		{
			name:   "401",
			script: `[{"status":401,"error":{"message":"Incorrect API key provided: sk-test-0123456789abcdef.","type":"invalid_request_error","code":"invalid_api_key"}}]`,
			status: 401,
			want:   []string{"model endpoint rejected the API key (HTTP 401): check OPENAI_API_KEY"},
		},
		{
			name:   "400",
			script: `[{"status":400,"error":{"message":"Invalid schema for function 'read_file'.","type":"invalid_request_error"}}]`,
			status: 400,
			want:   []string{"HTTP 400", "Invalid schema for function 'read_file'."},
		},
		{
			name:   "403",
			script: `[{"status":403,"error":{"message":"Project does not have access to model"}}]`,
			status: 403,
			want:   []string{"HTTP 403", "does not have access"},
		},
		{
			name:   "404 model",
			script: `[{"status":404,"error":{"message":"model \"llama9\" not found, try pulling it first"}}]`,
			status: 404,
			want:   []string{"HTTP 404", "llama9"},
		},
		{
			name:   "insufficient quota",
			script: `[{"status":429,"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}]`,
			status: 429,
			want:   []string{"quota", "billing"},
		},
		{
			name:    "context length",
			script:  `[{"status":400,"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}]`,
			status:  400,
			want:    []string{"context window", "128000"},
			context: true,
		},
		{
			name:    "context length from llama.cpp on 500",
			script:  `[{"status":500,"error":{"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}]`,
			status:  500,
			want:    []string{"context window"},
			context: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tt.script+"\n")
			var log retryLog
			c := newTestClient(srv.URL, &log)
			r, err := c.Complete(context.Background(), testRequest())
			if err == nil {
				t.Fatal("no error")
			}
			noKey(t, r, err)
			if r == nil || r.Attempts != 1 || len(srv.Requests()) != 1 || len(log.calls) != 0 {
				t.Fatalf("retried: reply %+v, %d requests", r, len(srv.Requests()))
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status {
				t.Fatalf("err = %#v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if errors.Is(err, ErrContextLength) != tt.context {
				t.Errorf("errors.Is(err, ErrContextLength) = %v", !tt.context)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if !bytes.Contains(r.Response, []byte(`"error"`)) {
				t.Errorf("failed reply lacks the response body: %q", r.Response)
			}
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":503,"error":{"message":"The server is overloaded."},"repeat":4}]`)
	var log retryLog
	c := newTestClient(srv.URL, &log)
	r, err := c.Complete(context.Background(), testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Attempts != 4 {
		t.Fatalf("err = %v", err)
	}
	for _, w := range []string{"4 attempts", "HTTP 503", "overloaded"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if r.Attempts != 4 || len(srv.Requests()) != 4 || len(log.calls) != 3 {
		t.Errorf("attempts %d, requests %d, retries %v", r.Attempts, len(srv.Requests()), log.calls)
	}
	if !strings.HasPrefix(log.calls[0], "1: model endpoint answered HTTP 503") {
		t.Errorf("retry report = %q", log.calls[0])
	}
	if srv.Remaining() != 0 {
		t.Error("not all attempts made")
	}
}

func TestMaxAttemptsOne(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":500}]`)
	c := newTestClient(srv.URL, nil, func(c *ClientConfig) { c.MaxAttempts = 1 })
	r, err := c.Complete(context.Background(), testRequest())
	if err == nil || r.Attempts != 1 || strings.Contains(err.Error(), "attempts") {
		t.Errorf("reply %+v, err %v", r, err)
	}
}

func TestTimeout(t *testing.T) {
	// The server would answer after ten minutes: an attempt that outlived
	// its timeout would show far above a busy machine's minute.
	srv := reviewtest.Serve(t, `[{"content":"late","delay":"10m","repeat":2}]`)
	var log retryLog
	c := newTestClient(srv.URL, &log, func(c *ClientConfig) {
		c.Timeout = 50 * time.Millisecond
		c.MaxAttempts = 2
	})
	start := time.Now()
	r, err := c.Complete(context.Background(), testRequest())
	if err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %s", d)
	}
	want := "model endpoint " + srv.URL + " did not answer within 50ms (2 attempts)"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want prefix %q", err, want)
	}
	if r.Attempts != 2 || len(log.calls) != 1 {
		t.Errorf("attempts %d, retries %d", r.Attempts, len(log.calls))
	}
	if errors.Is(err, context.Canceled) {
		t.Error("a timeout reported as cancellation")
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name   string
		script string
		edit   func(*ClientConfig)
	}{
		// Cancelled while the server is thinking.
		{name: "during request", script: `[{"content":"late","delay":"10m"}]`},
		// Cancelled while waiting to retry.
		{name: "during backoff", script: `[{"status":503,"headers":{"Retry-After":"30"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tt.script)
			c := newTestClient(srv.URL, nil)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			r, err := c.Complete(ctx, testRequest())
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			// Not stopping would take the ten minutes of the delay or the
			// thirty seconds of the Retry-After.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %s to stop", d)
			}
			if r.Attempts != 1 {
				t.Errorf("attempts = %d", r.Attempts)
			}
		})
	}
}

func TestDeadlineBeforeRetry(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":503,"headers":{"Retry-After":"30"},"error":{"message":"busy"}}]`)
	c := newTestClient(srv.URL, nil)
	// The deadline comes before the 30 s the server asks for: waiting
	// toward it would take 20 s, far above a busy machine's answer.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, testRequest())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 {
		t.Fatalf("err = %v, want the 503", err)
	}
	if time.Since(start) > 15*time.Second {
		t.Error("waited although the deadline would pass first")
	}
	// It says the deadline ended it, and the wait the server asked for.
	var past *WaitPastDeadlineError
	if !errors.As(err, &past) || past.Wait != 30*time.Second {
		t.Errorf("err = %v, want a WaitPastDeadlineError of 30s", err)
	}
	if !strings.Contains(err.Error(), "waiting 30s more for another attempt would pass the deadline") {
		t.Errorf("err = %q", err)
	}
	// Without a deadline, attempts exhausted are not the deadline's.
	c = newTestClient(reviewtest.Serve(t, `[{"status":400,"error":{"message":"bad"}}]`).URL, nil)
	if _, err := c.Complete(ctx, testRequest()); err == nil || errors.As(err, &past) {
		t.Errorf("a failure that is not retried: err = %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	var log retryLog
	c := newTestClient(base, &log, func(c *ClientConfig) { c.MaxAttempts = 2 })
	r, err := c.Complete(context.Background(), testRequest())
	if err == nil {
		t.Fatal("no error")
	}
	noKey(t, r, err)
	want := "cannot connect to model endpoint " + base + " (2 attempts): connection refused"
	var ce *ConnectError
	if err.Error() != want || !errors.As(err, &ce) || ce.NoHost || ce.Setting != "" {
		t.Errorf("err = %#v, want %q", err, want)
	}
	if r.Attempts != 2 || len(log.calls) != 1 || r.Response != nil {
		t.Errorf("reply = %+v, retries %v", r, log.calls)
	}
	// The error carries the setting the user chose the endpoint with,
	// for the advice.
	c = newTestClient(base, &log, func(c *ClientConfig) { c.MaxAttempts = 1; c.BaseURLFrom = "--base-url" })
	if _, err = c.Complete(context.Background(), testRequest()); !errors.As(err, &ce) || ce.Setting != "--base-url" {
		t.Errorf("with --base-url: err = %#v", err)
	}
}

func TestMalformedResponses(t *testing.T) {
	tests := []struct {
		name, script string
		want         string
	}{
		{"invalid JSON", `[{"raw":"{\"choices\": [oops"}]`, "not a chat completion (HTTP 200, 17 bytes)"},
		{"empty body", `[{"raw":" "}]`, "not a chat completion"},
		{"no choices", `[{"raw":"{\"id\":\"x\",\"choices\":[]}"}]`, "no choices"},
		{"error object with 200", `[{"error":{"message":"upstream failed"}}]`, "upstream failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tt.script)
			c := newTestClient(srv.URL, nil)
			r, err := c.Complete(context.Background(), testRequest())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if r == nil || r.Attempts != 1 || len(r.Request) == 0 {
				t.Errorf("reply = %+v", r)
			}
		})
	}
}

func TestKeyNeverLeaks(t *testing.T) {
	echo := `{"message":"bad key sk-test-0123456789abcdef given","type":"invalid_request_error"}`
	srv := reviewtest.Serve(t, `[{"status":500,"error":`+echo+`},{"status":400,"error":`+echo+`}]`)
	var log retryLog
	c := newTestClient(srv.URL, &log)
	r, err := c.Complete(context.Background(), testRequest())
	if err == nil {
		t.Fatal("no error")
	}
	noKey(t, r, err)
	if !strings.Contains(err.Error(), "bad key [redacted] given") {
		t.Errorf("err = %v", err)
	}
	for _, call := range log.calls {
		if strings.Contains(call, testKey) {
			t.Errorf("API key passed to OnRetry: %s", call)
		}
	}
	cfg := ClientConfig{BaseURL: "https://user:pw@example.com/v1?key=" + testKey, APIKey: testKey}
	for _, s := range []string{
		fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg),
		fmt.Sprintf("%v %+v %s", NewClient(cfg), NewClient(cfg), NewClient(cfg)),
	} {
		if strings.Contains(s, testKey) || strings.Contains(s, "pw") {
			t.Errorf("secret in formatted output: %s", s)
		}
	}
}

func TestBaseURL(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"content":"a","repeat":3}]`)
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/chat/completions"} {
		c := newTestClient(base, nil)
		if _, err := c.Complete(context.Background(), testRequest()); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
	for _, q := range srv.Requests() {
		if q.Path != "/v1/chat/completions" {
			t.Errorf("path = %s", q.Path)
		}
	}
}

func TestBadBaseURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"localhost:11434/v1", "invalid model endpoint URL"},
		{"ftp://example.com/v1", `"ftp://example.com/v1"`},
		{"http:///v1", "invalid model endpoint URL"},
		{"http://user:secret@exa mple.com/v1", "invalid model endpoint URL"},
	}
	for _, tt := range tests {
		c := newTestClient(tt.base, nil)
		r, err := c.Complete(context.Background(), testRequest())
		var ue *URLError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &ue) {
			t.Errorf("%s: err = %v", tt.base, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: password in error %v", tt.base, err)
		}
		if r != nil {
			t.Errorf("%s: reply without a request", tt.base)
		}
	}
}

func TestDefaults(t *testing.T) {
	c := NewClient(ClientConfig{})
	want := ClientConfig{BaseURL: DefaultBaseURL, Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts, BaseDelay: DefaultBaseDelay, MaxDelay: DefaultMaxDelay}
	if c.cfg.BaseURL != want.BaseURL || c.cfg.Timeout != want.Timeout || c.cfg.MaxAttempts != want.MaxAttempts ||
		c.cfg.BaseDelay != want.BaseDelay || c.cfg.MaxDelay != want.MaxDelay {
		t.Errorf("cfg = %+v", c.cfg)
	}
	if c.endpoint != "https://api.openai.com/v1/chat/completions" || c.String() != "model client for https://api.openai.com/v1" {
		t.Errorf("endpoint %s, %s", c.endpoint, c)
	}
	if _, ok := c.header["Authorization"]; ok {
		t.Error("Authorization header without a key")
	}
}

func TestConcurrentComplete(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"content":"ok","repeat":8}]`)
	c := newTestClient(srv.URL, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), testRequest()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// Client must satisfy Model.
var _ Model = (*Client)(nil)

func BenchmarkComplete(b *testing.B) {
	s, _ := reviewtest.ParseScript([]byte(`{"steps":[],"fallback":{"content":"ok"}}`))
	srv := reviewtest.NewServer(s, "")
	defer srv.Close()
	c := NewClient(ClientConfig{BaseURL: srv.URL})
	req := testRequest()
	var size int
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Complete(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		size = len(r.Request)
	}
	b.ReportMetric(float64(size), "request-bytes")
}

// TestTimeoutStalledBody: a server that starts its answer and then goes
// silent fails within the timeout, as one that never answers does.
func TestTimeoutStalledBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"id": "chatcmpl-1", "choices": [`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newTestClient(srv.URL, nil, func(c *ClientConfig) {
		c.Timeout = 100 * time.Millisecond
		c.MaxAttempts = 1
	})
	start := time.Now()
	_, err := c.Complete(context.Background(), testRequest())
	var te *TimeoutError
	if err == nil || !strings.Contains(err.Error(), "did not answer within 100ms") || !errors.As(err, &te) || te.Phase != PhaseAnswer {
		t.Fatalf("err = %v", err)
	}
	// The server holds the request until the test ends: any bound far
	// above a busy machine's tells a timeout that did not fire.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %s", d)
	}
}

func TestLocal(t *testing.T) {
	for u, want := range map[string]bool{
		"http://localhost:11434/v1":         true,
		"http://127.0.0.1:8080/v1":          true,
		"http://[::1]:8000/v1":              true,
		"http://192.168.1.20:11434/v1":      true,
		"http://10.0.0.5/v1":                true,
		"http://ollama:11434/v1":            true,
		"http://gpu-box.local:8000/v1":      true,
		"http://host.docker.internal:1/v1":  true,
		"https://api.openai.com/v1":         false,
		"https://api.deepseek.com":          false,
		"https://8.8.8.8/v1":                false,
		"not a url":                         false,
		"":                                  false,
		"https://user:pw@api.example.com/v": false,
	} {
		if got := Local(u); got != want {
			t.Errorf("Local(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestUnauthorizedWithoutKey: a 401 to a request that carried no key asks
// for one instead of calling a key wrong.
func TestUnauthorizedWithoutKey(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"status":401,"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}]`)
	c := newTestClient(srv.URL, nil, func(c *ClientConfig) { c.APIKey = "" })
	_, err := c.Complete(context.Background(), testRequest())
	if err == nil || err.Error() != "model endpoint requires an API key (HTTP 401) and none was sent: set OPENAI_API_KEY" {
		t.Fatalf("err = %v", err)
	}
}
