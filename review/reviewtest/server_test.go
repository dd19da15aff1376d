package reviewtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/reviewdev/review/review/reviewtest"
)

const request = `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`

// post sends body to the server's chat-completions endpoint.
func post(t *testing.T, srv *reviewtest.Server, body string, header http.Header) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func parse(t *testing.T, js string) *reviewtest.Script {
	t.Helper()
	s, err := reviewtest.ParseScript([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompletions(t *testing.T) {
	tests := []struct {
		name   string
		script string
		check  func(t *testing.T, r openai.ChatCompletionResponse, raw []byte)
	}{
		{
			name:   "content",
			script: `[{"content": "looks good"}]`,
			check: func(t *testing.T, r openai.ChatCompletionResponse, raw []byte) {
				m := r.Choices[0].Message
				if m.Role != "assistant" || m.Content != "looks good" || len(m.ToolCalls) != 0 {
					t.Errorf("message = %+v", m)
				}
				if r.Choices[0].FinishReason != "stop" {
					t.Errorf("finish_reason = %q", r.Choices[0].FinishReason)
				}
				if r.Model != "gpt-test" || r.Object != "chat.completion" || r.ID != "chatcmpl-1" {
					t.Errorf("header fields = %q %q %q", r.Model, r.Object, r.ID)
				}
				if r.Usage.PromptTokens == 0 || r.Usage.TotalTokens != r.Usage.PromptTokens+r.Usage.CompletionTokens {
					t.Errorf("default usage = %+v", r.Usage)
				}
			},
		},
		{
			name: "tool calls",
			script: `[{"tool_calls": [
				{"name": "read_file", "arguments": {"path": "a.go",  "start": 1}},
				{"id": "mine", "name": "grep", "raw_arguments": "{\"pattern\": "},
				{"name": "list"}]}]`,
			check: func(t *testing.T, r openai.ChatCompletionResponse, raw []byte) {
				if !bytes.Contains(raw, []byte(`"content":null`)) {
					t.Errorf("content is not null with only tool calls: %s", raw)
				}
				want := []openai.ToolCall{
					{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go","start":1}`}},
					{ID: "mine", Type: "function", Function: openai.FunctionCall{Name: "grep", Arguments: `{"pattern": `}},
					{ID: "call_3", Type: "function", Function: openai.FunctionCall{Name: "list", Arguments: `{}`}},
				}
				got := r.Choices[0].Message.ToolCalls
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("tool calls =\n%+v\nwant\n%+v", got, want)
				}
				if r.Choices[0].FinishReason != "tool_calls" {
					t.Errorf("finish_reason = %q", r.Choices[0].FinishReason)
				}
			},
		},
		{
			name:   "usage and finish reason",
			script: `[{"content": "cut", "finish_reason": "length", "usage": {"prompt_tokens": 100, "completion_tokens": 7, "cached_tokens": 64}}]`,
			check: func(t *testing.T, r openai.ChatCompletionResponse, raw []byte) {
				u := r.Usage
				if u.PromptTokens != 100 || u.CompletionTokens != 7 || u.TotalTokens != 107 ||
					u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 64 {
					t.Errorf("usage = %+v", u)
				}
				if r.Choices[0].FinishReason != "length" {
					t.Errorf("finish_reason = %q", r.Choices[0].FinishReason)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.NewServer(parse(t, tt.script), "")
			defer srv.Close()
			status, header, raw := post(t, srv, request, nil)
			if status != http.StatusOK || header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, content type %q", status, header.Get("Content-Type"))
			}
			if err := reviewtest.ValidateResponse(raw); err != nil {
				t.Errorf("response does not match the schema: %v\n%s", err, raw)
			}
			var r openai.ChatCompletionResponse
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Choices) != 1 {
				t.Fatalf("choices = %d", len(r.Choices))
			}
			tt.check(t, r, raw)
		})
	}
}

func TestToolCallIDsContinueAcrossRequests(t *testing.T) {
	srv := reviewtest.NewServer(parse(t, `[{"tool_calls":[{"name":"a"}]},{"tool_calls":[{"name":"b"},{"name":"c"}]}]`), "")
	defer srv.Close()
	var ids []string
	for range 2 {
		_, _, raw := post(t, srv, request, nil)
		var r openai.ChatCompletionResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		for _, tc := range r.Choices[0].Message.ToolCalls {
			ids = append(ids, tc.ID)
		}
	}
	if got := strings.Join(ids, ","); got != "call_1,call_2,call_3" {
		t.Errorf("ids = %s", got)
	}
}

func TestErrorsRawRepeatAndFallback(t *testing.T) {
	srv := reviewtest.NewServer(parse(t, `{"steps": [
		{"status": 429, "headers": {"Retry-After": "0"}, "error": {"message": "slow down", "type": "rate_limit_error", "code": "rate_limit_exceeded"}, "repeat": 2},
		{"raw": "{not json"},
		{"status": 502, "raw": "<html>bad gateway</html>", "headers": {"Content-Type": "text/html"}}
	], "fallback": {"content": "again"}}`), "")
	defer srv.Close()

	for i := range 2 {
		status, h, raw := post(t, srv, request, nil)
		if status != 429 || h.Get("Retry-After") != "0" {
			t.Errorf("request %d: status %d, Retry-After %q", i+1, status, h.Get("Retry-After"))
		}
		var e openai.ErrorResponse
		if err := json.Unmarshal(raw, &e); err != nil || e.Error == nil {
			t.Fatalf("error body %s: %v", raw, err)
		}
		if e.Error.Message != "slow down" || e.Error.Type != "rate_limit_error" || e.Error.Code != "rate_limit_exceeded" {
			t.Errorf("error = %+v", e.Error)
		}
	}
	if status, _, raw := post(t, srv, request, nil); status != 200 || string(raw) != "{not json" {
		t.Errorf("raw step: %d %q", status, raw)
	}
	if status, h, raw := post(t, srv, request, nil); status != 502 || h.Get("Content-Type") != "text/html" || !strings.Contains(string(raw), "bad gateway") {
		t.Errorf("raw error step: %d %q %q", status, h.Get("Content-Type"), raw)
	}
	if srv.Remaining() != 0 {
		t.Errorf("remaining = %d", srv.Remaining())
	}
	for range 2 {
		if status, _, raw := post(t, srv, request, nil); status != 200 || !strings.Contains(string(raw), `"content":"again"`) {
			t.Errorf("fallback: %d %s", status, raw)
		}
	}
}

func TestExhaustedScript(t *testing.T) {
	srv := reviewtest.NewServer(nil, "")
	defer srv.Close()
	status, _, raw := post(t, srv, request, nil)
	if status != http.StatusInternalServerError || !strings.Contains(string(raw), "script exhausted") {
		t.Errorf("%d %s", status, raw)
	}
}

func TestUnknownPath(t *testing.T) {
	srv := reviewtest.NewServer(parse(t, `[{"content":"x"}]`), "")
	defer srv.Close()
	resp, err := http.Post(strings.TrimSuffix(srv.URL, "/v1")+"/chat/completions", "application/json", strings.NewReader(request))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(raw), "unknown_url") {
		t.Errorf("%d %s", resp.StatusCode, raw)
	}
	if srv.Remaining() != 1 {
		t.Error("a request to an unknown path used a step")
	}
	if got := srv.Requests(); len(got) != 1 || got[0].Path != "/chat/completions" {
		t.Errorf("requests = %+v", got)
	}
}

// A scripted llama.cpp server counts a token a character, then fails
// as the script says; its counts are not chat requests.
func TestTokenize(t *testing.T) {
	count := func(srv *reviewtest.Server, content string) (int, string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"content": content, "add_special": false})
		resp, err := http.Post(strings.TrimSuffix(srv.URL, "/v1")+"/tokenize", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(raw))
	}
	srv := reviewtest.NewServer(parse(t, `{"tokenize": {"fail_after": 2}, "steps": []}`), "")
	defer srv.Close()
	for _, want := range []struct {
		status int
		body   string
	}{{200, `{"tokens":[104,233,108]}`}, {200, `{"tokens":[104,233,108]}`}, {500, `"tokenize failed"`}} {
		if status, body := count(srv, "hél"); status != want.status || !strings.Contains(body, want.body) {
			t.Errorf("got %d %s, want %d %s", status, body, want.status, want.body)
		}
	}
	if got := srv.Requests(); len(got) != 0 {
		t.Errorf("counts were numbered as requests: %+v", got)
	}
	none := reviewtest.NewServer(parse(t, `[]`), "")
	defer none.Close()
	if status, _ := count(none, "x"); status != http.StatusNotFound || len(none.Requests()) != 0 {
		t.Errorf("an unscripted /tokenize answered %d, or was numbered", status)
	}
	if _, err := reviewtest.ParseScript([]byte(`{"tokenize": {"status": 7}, "steps": []}`)); err == nil {
		t.Error("a tokenize status that is not an HTTP one was taken")
	}
}

func TestRecording(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	srv := reviewtest.NewServer(parse(t, `[{"content":"one"},{"status":400,"error":{"message":"bad"}}]`), dir)
	defer srv.Close()

	bodies := []string{request, `{"model":"m2","messages":[]}` + "\n"}
	var resps [][]byte
	for _, b := range bodies {
		_, _, raw := post(t, srv, b, http.Header{"Authorization": {"Bearer sk-test-secret"}})
		resps = append(resps, raw)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	for i, b := range bodies {
		n := i + 1
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("req-%03d.json", n)))
		if err != nil || string(got) != b {
			t.Errorf("req-%03d.json = %q, %v; want %q", n, got, err, b)
		}
		hdr, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("req-%03d.headers", n)))
		if err != nil || !strings.Contains(string(hdr), "Authorization: Bearer sk-test-secret\r\n") {
			t.Errorf("req-%03d.headers = %q, %v", n, hdr, err)
		}
		resp, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("resp-%03d.json", n)))
		if err != nil || !bytes.Equal(resp, resps[i]) {
			t.Errorf("resp-%03d.json = %q, %v; want %q", n, resp, err, resps[i])
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].N != 2 || string(reqs[1].Body) != bodies[1] ||
		reqs[0].Header.Get("Authorization") != "Bearer sk-test-secret" || reqs[0].Method != http.MethodPost {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestDelay(t *testing.T) {
	srv := reviewtest.NewServer(parse(t, `[{"content":"late","delay":"30s"},{"content":"soon","delay":"20ms"}]`), "")
	defer srv.Close()

	// A client that gives up ends the wait; the step is used.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(request))
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	start := time.Now()
	status, _, raw := post(t, srv, request, nil)
	if status != 200 || !strings.Contains(string(raw), "soon") {
		t.Errorf("%d %s", status, raw)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("answered after %s, before the delay", d)
	}
}

func TestCloseEndsDelays(t *testing.T) {
	srv := reviewtest.NewServer(parse(t, `[{"content":"late","delay":"1h"}]`), "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(request))
		if err == nil {
			resp.Body.Close()
		}
	}()
	for len(srv.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a delayed request")
	}
}

func TestConcurrentRequests(t *testing.T) {
	const n = 16
	srv := reviewtest.NewServer(parse(t, `[{"tool_calls":[{"name":"a"}],"repeat":16}]`), t.TempDir())
	defer srv.Close()
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for range n {
		wg.Go(func() {
			resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(request))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var r openai.ChatCompletionResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Choices) == 0 {
				t.Errorf("decode: %v", err)
				return
			}
			ids <- r.Choices[0].Message.ToolCalls[0].ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("duplicate tool call id %s", id)
		}
		seen[id] = true
	}
	if len(seen) != n || len(srv.Requests()) != n || srv.Remaining() != 0 {
		t.Errorf("ids %d, requests %d, remaining %d", len(seen), len(srv.Requests()), srv.Remaining())
	}
}

func TestParseScript(t *testing.T) {
	tests := []struct {
		name, script string
		steps        int
		fallback     bool
		err          string
	}{
		{name: "array", script: `[{"content":"a"},{"content":"b","repeat":3}]`, steps: 2},
		{name: "object", script: ` {"steps":[{"content":"a"}],"fallback":{"status":503}}`, steps: 1, fallback: true},
		{name: "empty array", script: `[]`},
		{name: "unknown field", script: `[{"contnet":"a"}]`, err: "unknown field"},
		{name: "bad delay", script: `[{"delay":"soon"}]`, err: `delay "soon"`},
		{name: "negative delay", script: `[{"delay":"-1s"}]`, err: "delay"},
		{name: "bad status", script: `[{"status":42}]`, err: "status 42"},
		{name: "negative repeat", script: `[{"repeat":-1}]`, err: "repeat"},
		{name: "arguments not object", script: `[{"tool_calls":[{"name":"a","arguments":[1]}]}]`, err: "raw_arguments"},
		{name: "tool without name", script: `[{"tool_calls":[{"arguments":{}}]}]`, err: "no name"},
		{name: "bad fallback", script: `{"steps":[],"fallback":{"delay":"x"}}`, err: "fallback"},
		{name: "trailing data", script: `[] []`, err: "after the script"},
		{name: "not json", script: `steps:`, err: "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := reviewtest.ParseScript([]byte(tt.script))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Steps) != tt.steps || (s.Fallback != nil) != tt.fallback {
				t.Errorf("script = %+v", s)
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`[{"content":"hi"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := reviewtest.LoadScript(good); err != nil || len(s.Steps) != 1 {
		t.Errorf("LoadScript = %+v, %v", s, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"delay":"x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reviewtest.LoadScript(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "step 1") {
		t.Errorf("err = %v", err)
	}
	if _, err := reviewtest.LoadScript(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}

// TestDelayFromArrival holds that a step's delay, which counts from the
// request's arrival, is never cut short: requests of several hundred
// kilobytes sent at once, streamed or not, are each answered no sooner
// than their delay after they arrived.
func TestDelayFromArrival(t *testing.T) {
	const n = 8
	srv := reviewtest.NewServer(parse(t, `[{"content":"ok","delay":"50ms","repeat":8}]`), "")
	defer srv.Close()
	big := strings.Repeat("x", 400<<10)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"gpt-test","stream":%t,"messages":[{"role":"user","content":%q}]}`, i%2 == 0, big)
			if status, _, raw := post(t, srv, body, nil); status != 200 {
				t.Errorf("%d %s", status, raw)
			}
		})
	}
	wg.Wait()
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("%d requests, want %d", len(reqs), n)
	}
	for _, r := range reqs {
		if d := r.Answered.Sub(r.Arrived); d < 50*time.Millisecond {
			t.Errorf("request %d answered %s after it arrived, before its delay", r.N, d)
		}
	}
}
