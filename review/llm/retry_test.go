package llm

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": " 1.5 "}, 1500 * time.Millisecond, true},
		{"date", map[string]string{"Retry-After": now.Add(20 * time.Second).Format(http.TimeFormat)}, 20 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond, true},
		{"bad milliseconds", map[string]string{"Retry-After-Ms": "soon", "Retry-After": "2"}, 2 * time.Second, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0, false},
		{"huge", map[string]string{"Retry-After": "1e300"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "later"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("retryAfter = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c := NewClient(ClientConfig{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second})
	for attempt, ceil := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 60: time.Second, 1000: time.Second,
	} {
		var hi time.Duration
		for range 300 {
			d := c.backoff(attempt)
			if d < 0 || d > ceil {
				t.Fatalf("attempt %d: wait %s outside [0, %s]", attempt, d, ceil)
			}
			hi = max(hi, d)
		}
		// Full jitter spreads over the whole range; 300 draws all in the
		// lower half would happen with probability 2^-300.
		if hi <= ceil/2 {
			t.Errorf("attempt %d: waits never above %s", attempt, hi)
		}
	}
}

func TestAPIErrorMessages(t *testing.T) {
	tests := []struct {
		err     APIError
		want    string
		context bool
		retry   bool
	}{
		{APIError{Status: 401, Message: "Incorrect API key"}, "model endpoint rejected the API key (HTTP 401): check OPENAI_API_KEY", false, false},
		{APIError{Status: 404, Message: "model not found"}, "model endpoint answered HTTP 404 (model not found)", false, false},
		{APIError{Status: 400, Message: "messages: too short"}, "model endpoint rejected the request (HTTP 400): messages: too short", false, false},
		{APIError{Status: 400}, "model endpoint rejected the request (HTTP 400): Bad Request", false, false},
		{APIError{Status: 503, Message: "busy", Attempts: 4}, "model endpoint failed 4 attempts, the last with HTTP 503: busy", false, true},
		{APIError{Status: 503, Message: "busy"}, "model endpoint answered HTTP 503: busy", false, true},
		{APIError{Status: 429, Message: "Rate limit reached"}, "model endpoint answered HTTP 429: Rate limit reached", false, true},
		{APIError{Status: 429, Code: "insufficient_quota", Message: "You exceeded your current quota"}, "model endpoint reports the quota is used up (HTTP 429): You exceeded your current quota: check the account's plan and billing", false, false},
		{APIError{Status: 400, Code: "context_length_exceeded", Message: "too long"}, "request exceeds the model's context window (HTTP 400): too long", true, false},
		{APIError{Status: 413}, "request exceeds the model's context window (HTTP 413): Request Entity Too Large", true, false},
		{APIError{Status: 400, Message: "This model's maximum context length is 8192 tokens"}, "", true, false},
		{APIError{Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}, "", true, false},
		{APIError{Status: 400, Message: "The decoder prompt (length 9000) is longer than the maximum model length of 8192."}, "", true, false},
		{APIError{Status: 500, Message: "Context Length Exceeded"}, "", true, false},
		{APIError{Status: 400, Message: "Too many tokens in the input"}, "", true, false},
		{APIError{Status: 502, Message: "bad gateway"}, "", false, true},
		{APIError{Status: 501}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err.Status, tt.err.Message), func(t *testing.T) {
			e := tt.err
			if tt.want != "" && e.Error() != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", e.Error(), tt.want)
			}
			var err error = fmt.Errorf("review: %w", &e)
			if errors.Is(err, ErrContextLength) != tt.context {
				t.Errorf("context length = %v, want %v", !tt.context, tt.context)
			}
			if e.retryable() != tt.retry {
				t.Errorf("retryable = %v, want %v", !tt.retry, tt.retry)
			}
		})
	}
}

func TestDecodeAPIError(t *testing.T) {
	tests := []struct {
		name, body string
		want       APIError
		ok         bool
	}{
		{"openai", `{"error":{"message":"Invalid 'messages'.","type":"invalid_request_error","param":"messages","code":"invalid_value"}}`,
			APIError{Status: 400, Type: "invalid_request_error", Code: "invalid_value", Message: "Invalid 'messages'."}, true},
		{"numeric code", `{"error":{"code":400,"message":"bad","type":"invalid_request_error"}}`,
			APIError{Status: 400, Type: "invalid_request_error", Code: "400", Message: "bad"}, true},
		{"message list", `{"error":{"message":["a","b"]}}`, APIError{Status: 400, Message: "a, b"}, true},
		{"ollama", `{"error":"model 'x' not found"}`, APIError{Status: 400, Message: "model 'x' not found"}, true},
		{"vllm", `{"object":"error","message":"bad input","type":"BadRequestError","code":400}`,
			APIError{Status: 400, Type: "BadRequestError", Code: "400", Message: "bad input"}, true},
		{"multi-line message", `{"error":{"message":"line one\n\n  line two"}}`, APIError{Status: 400, Message: "line one line two"}, true},
		{"html", "<html>\n<body>Bad Request</body>\n</html>", APIError{Status: 400, Message: "<html> <body>Bad Request</body> </html>"}, false},
		{"empty", ``, APIError{Status: 400}, false},
		{"binary", "\xff\xfe\x00", APIError{Status: 400}, false},
		{"empty error object", `{"error":{}}`, APIError{Status: 400, Message: "{\"error\":{}}"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := decodeAPIError(400, []byte(tt.body))
			if *got != tt.want || ok != tt.ok {
				t.Errorf("got %+v, %v; want %+v, %v", *got, ok, tt.want, tt.ok)
			}
		})
	}
	long, _ := decodeAPIError(500, []byte(strings.Repeat("é", 1000)))
	if n := len([]rune(long.Message)); n != maxMessage+1 {
		t.Errorf("long message kept %d runes", n)
	}
}

func TestTransient(t *testing.T) {
	urlErr := func(err error) error { return &url.Error{Op: "Post", URL: "http://x/v1/chat/completions", Err: err} }
	tests := []struct {
		name string
		err  error
		want bool
		msg  string
	}{
		{"refused", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true, "cannot connect to model endpoint http://h/v1: connection refused"},
		{"reset", urlErr(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true, "request to model endpoint http://h/v1 failed: read tcp: "},
		{"eof", urlErr(io.EOF), true, "request to model endpoint http://h/v1 failed: EOF"},
		{"attempt timeout", fmt.Errorf("%w: %w", errAttemptTimeout, urlErr(context.DeadlineExceeded)), true, "model endpoint http://h/v1 did not answer within 1m0s"},
		{"no such host", urlErr(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}}), false, "cannot resolve the host of model endpoint http://h/v1: no such host"},
		{"dns timeout", urlErr(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "i/o timeout", Name: "h", IsTimeout: true}}), true, "did not answer within"},
		{"certificate", urlErr(&tls.CertificateVerificationError{Err: errors.New("x509: certificate signed by unknown authority")}), false, "TLS with model endpoint http://h/v1 failed: "},
		{"plain http on https", urlErr(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), false, "check the URL's scheme"},
		{"too large", errTooLarge, false, "sent a response over the limit: response larger than 32 MiB"},
	}
	c := NewClient(ClientConfig{BaseURL: "http://h/v1", Timeout: time.Minute})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transient(tt.err); got != tt.want {
				t.Errorf("transient = %v, want %v", got, tt.want)
			}
			e := c.transportError(tt.err)
			if !strings.Contains(e.Error(), tt.msg) {
				t.Errorf("message %q lacks %q", e.Error(), tt.msg)
			}
			if strings.Contains(e.Error(), "chat/completions") {
				t.Errorf("message repeats the URL: %q", e.Error())
			}
			if !errors.Is(e, tt.err) {
				t.Error("cause not wrapped")
			}
		})
	}
}

// A rate limit the server names the end of is waited out past
// MaxAttempts; one without Retry-After, or any other failure, is not;
// MaxAttempts 1 makes one attempt; a deadline ends the wait.
func TestRateLimitOutlastsAttempts(t *testing.T) {
	ok := `{"choices": [{"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}`
	limit := `{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}`
	for _, c := range []struct {
		name     string
		refusals int
		header   string
		max      int
		deadline time.Duration
		attempts int
		fails    bool
	}{
		{"retry-after, past four attempts", 7, "retry-after-ms", 4, 0, 8, false},
		{"no retry-after", 7, "", 4, 0, 4, true},
		{"one attempt only", 7, "retry-after-ms", 1, 0, 1, true},
		{"deadline", 1000, "retry-after-ms", 4, 300 * time.Millisecond, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				if n <= c.refusals {
					if c.header != "" {
						w.Header().Set(c.header, "20")
					}
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = io.WriteString(w, limit)
					return
				}
				_, _ = io.WriteString(w, ok)
			}))
			defer srv.Close()
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.deadline)
				defer cancel()
			}
			cl := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", MaxAttempts: c.max, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
			r, err := cl.Complete(ctx, Request{Model: "m", Messages: []conversation.Message{{Role: conversation.User, Content: "hi"}}})
			if (err != nil) != c.fails {
				t.Fatalf("error %v, want failure %v", err, c.fails)
			}
			if c.attempts > 0 && r.Attempts != c.attempts {
				t.Errorf("%d attempts, want %d", r.Attempts, c.attempts)
			}
		})
	}
}
