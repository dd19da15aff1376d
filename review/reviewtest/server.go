package reviewtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/review/llm/wire"
)

// chatPath is the only resource the server implements.
const chatPath = "/v1/chat/completions"

// created is the fixed creation time of every completion, so recorded
// responses are the same from run to run.
const created = 1700000000

// Received is a request as the server got it.
type Received struct {
	// N numbers requests from 1 in arrival order, matching the names of
	// the recorded files.
	N      int
	Method string
	Path   string
	Body   []byte
	Header http.Header
	// Arrived is when the request came in, Answered when its answer was
	// written (zero while it is not); Status is the answer's.
	Arrived, Answered time.Time
	Status            int
}

// Server is a scripted OpenAI-compatible chat-completions server. It is
// safe for concurrent requests.
type Server struct {
	// URL is the base URL including /v1, as OPENAI_BASE_URL takes it.
	URL string

	ts        *httptest.Server
	recordDir string
	closed    chan struct{}
	closeOnce sync.Once

	discovery map[string][]byte // "METHOD /path" → body
	tokenize  *Tokenize
	counted   int // counts answered by /tokenize

	mu       sync.Mutex
	steps    []Step
	used     []bool
	next     int // steps used
	fallback Step
	forced   *Step
	window   int
	// storm is the rate-limit storm's length and Retry-After; stormFrom
	// when it began, at the first chat request.
	storm      time.Duration
	stormAfter string
	stormFrom  time.Time
	// probes are the requests beside chat completions (discovery,
	// counting), in order.
	probes   []Received
	whole    bool // answer streamed requests whole
	calls    int  // tool calls handed out, for default IDs
	received []Received
	err      error
}

// NewServer starts a server answering with script s. If recordDir is not
// empty, each request body is written to recordDir/req-001.json, its
// headers (Authorization included, so tests can see that a key was sent)
// to req-001.headers, and the response body to resp-001.json.
func NewServer(s *Script, recordDir string) *Server {
	srv := &Server{recordDir: recordDir, closed: make(chan struct{})}
	if s != nil {
		for _, st := range s.Steps {
			for range max(st.Repeat, 1) {
				srv.steps = append(srv.steps, st)
			}
		}
		if s.Fallback != nil {
			srv.fallback = *s.Fallback
		}
		srv.used = make([]bool, len(srv.steps))
		srv.forced, srv.window, srv.whole = s.Forced, s.Window, s.Stream == "whole"
		srv.tokenize = s.Tokenize
		if r := s.RateLimit; r != nil {
			srv.storm, _ = time.ParseDuration(r.For)
			srv.stormAfter = r.RetryAfter
		}
		srv.discovery = map[string][]byte{}
		for k, v := range map[string]json.RawMessage{"GET /v1/models": s.Models, "POST /api/show": s.Show, "GET /props": s.Props, "GET /slots": s.Slots} {
			if len(v) > 0 {
				srv.discovery[k] = v
			}
		}
	}
	if s == nil || s.Fallback == nil {
		srv.fallback = Step{
			Status: http.StatusInternalServerError,
			Error: &ErrorBody{
				Message: fmt.Sprintf("script exhausted: all %d scripted replies were used", len(srv.steps)),
				Type:    "server_error",
			},
		}
	}
	if recordDir != "" {
		if err := os.MkdirAll(recordDir, 0o755); err != nil {
			srv.err = err
		}
	}
	srv.ts = httptest.NewServer(http.HandlerFunc(srv.serve))
	srv.URL = srv.ts.URL + "/v1"
	return srv
}

// Close shuts the server down. Requests still waiting out a delay are
// answered at once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.ts.Close()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Received, len(s.received))
	for i, r := range s.received {
		r.Body = bytes.Clone(r.Body)
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// Remaining is the number of scripted steps not yet used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// Err reports the first failure to write a recording.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// answer is a response ready to write.
type answer struct {
	status int
	header map[string]string
	body   []byte
	delay  time.Duration
	// events, if set, are written as a stream instead of body; after
	// stall of them nothing more is sent, after cut the stream ends.
	events     [][]byte
	stall, cut int
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read request: "+err.Error(), http.StatusBadRequest)
		return
	}
	got := time.Now()
	if r.URL.Path != chatPath {
		s.probe(r, body)
	}
	if r.URL.Path == "/" && r.Method == http.MethodGet && s.discovery["POST /api/show"] != nil {
		// Ollama says so at its root.
		_, _ = io.WriteString(w, "Ollama is running")
		return
	}
	if r.URL.Path != chatPath {
		// Discovery is not a chat request: answered, never numbered.
		if b, ok := s.discovery[r.Method+" "+r.URL.Path]; ok {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "POST /tokenize":
			s.count(w, body)
			return
		case "GET /v1/models", "POST /api/show", "GET /props", "GET /slots", "GET /":
			http.NotFound(w, r)
			return
		}
	}
	// What the answer depends on in the request is read before the lock,
	// which every request waits for: a review's requests come several at
	// once and are hundreds of kilobytes each, and decoding each four
	// times over under the lock held each in line for the ones before it,
	// tens of milliseconds for the last of eight.
	q := inspect(body)
	matches := s.matching(body)
	s.mu.Lock()
	n := len(s.received) + 1
	s.received = append(s.received, Received{N: n, Method: r.Method, Path: r.URL.Path, Body: body, Header: r.Header.Clone(), Arrived: got})
	s.record(fmt.Sprintf("req-%03d.json", n), body)
	var hdr bytes.Buffer
	_ = r.Header.Write(&hdr)
	s.record(fmt.Sprintf("req-%03d.headers", n), hdr.Bytes())
	a := s.answer(n, r, q, matches)
	s.mu.Unlock()
	// A step's delay counts from the request's arrival, as a server's
	// latency does, not from when this server got to it.
	if a.delay > 0 {
		a.delay = max(time.Until(got.Add(a.delay)), time.Nanosecond)
	}

	if a.events != nil {
		s.stream(w, r, n, a)
		return
	}
	if a.delay > 0 {
		t := time.NewTimer(a.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up; nothing is sent
		case <-s.closed:
		}
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)

	s.mu.Lock()
	s.record(fmt.Sprintf("resp-%03d.json", n), a.body)
	s.answered(n, a.status)
	s.mu.Unlock()
}

// storming reports whether the rate-limit storm goes on, starting it at
// the first chat request; s.mu is held.
func (s *Server) storming() bool {
	if s.stormFrom.IsZero() {
		s.stormFrom = time.Now()
	}
	return time.Since(s.stormFrom) < s.storm
}

// probe notes a request beside chat completions, and records it as a
// line of probes.log: method, path, and whether it carried a key.
func (s *Server) probe(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probes = append(s.probes, Received{N: len(s.probes) + 1, Method: r.Method, Path: r.URL.Path, Body: body, Header: r.Header.Clone(), Arrived: time.Now()})
	if s.recordDir == "" {
		return
	}
	key := "no key"
	if r.Header.Get("Authorization") != "" {
		key = "with key"
	}
	f, err := os.OpenFile(filepath.Join(s.recordDir, "probes.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintf(f, "%s %s %s\n", r.Method, r.URL.Path, key)
		err = errors.Join(err, f.Close())
	}
	if err != nil && s.err == nil {
		s.err = err
	}
}

// Probes returns the requests beside chat completions received so far
// (discovery, counting, any other path), in order.
func (s *Server) Probes() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Received, len(s.probes))
	for i, r := range s.probes {
		r.Body = bytes.Clone(r.Body)
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// count answers POST /tokenize as the script says: one token id a
// character of the content, without special tokens.
func (s *Server) count(w http.ResponseWriter, body []byte) {
	s.mu.Lock()
	t := s.tokenize
	status := http.StatusOK
	switch {
	case t == nil:
		status = http.StatusNotFound
	case t.Status != 0:
		status = t.Status
	case t.FailAfter > 0 && s.counted >= t.FailAfter:
		status = http.StatusInternalServerError
	default:
		s.counted++
	}
	s.mu.Unlock()
	if status != http.StatusOK {
		http.Error(w, fmt.Sprintf(`{"error": {"code": %d, "message": "tokenize failed", "type": "server_error"}}`, status), status)
		return
	}
	var req struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ids := make([]int, 0, len(req.Content))
	for _, c := range req.Content {
		ids = append(ids, int(c))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string][]int{"tokens": ids})
}

// answer is the answer to request n, read as q; s.mu is held.
func (s *Server) answer(n int, r *http.Request, q *request, matches []bool) answer {
	if r.Method != http.MethodPost || r.URL.Path != chatPath {
		return answer{status: http.StatusNotFound, body: errorJSON(ErrorBody{
			Message: fmt.Sprintf("Unknown request URL: %s %s. This server serves POST %s.", r.Method, r.URL.Path, chatPath),
			Type:    "invalid_request_error",
			Code:    "unknown_url",
		})}
	}
	switch tokens := len(q.body) / 4; {
	case s.window > 0 && tokens > s.window:
		return answer{status: http.StatusBadRequest, body: errorJSON(ErrorBody{
			Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", s.window, tokens),
			Type:    "invalid_request_error",
			Code:    "context_length_exceeded",
		})}
	case s.storm > 0 && s.storming():
		return answer{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": s.stormAfter}, body: errorJSON(ErrorBody{
			Message: "Rate limit reached; try again in " + s.stormAfter + "s.",
			Type:    "requests",
			Code:    "rate_limit_exceeded",
		})}
	case s.forced != nil && q.forcesFunction():
		return s.render(n, *s.forced, q)
	default:
		return s.render(n, s.take(matches), q)
	}
}

// matching says, for each step, whether body holds its Step.When; the
// steps do not change once the server runs, so no lock is needed.
func (s *Server) matching(body []byte) []bool {
	m := make([]bool, len(s.steps))
	for i, st := range s.steps {
		m[i] = st.When != "" && bytes.Contains(body, []byte(st.When))
	}
	return m
}

// take is the step that answers a request: the first not yet used whose
// Step.When the request matches (matching), else the fallback; s.mu is
// held.
func (s *Server) take(matches []bool) Step {
	for i, st := range s.steps {
		if s.used[i] || (st.When != "" && !matches[i]) {
			continue
		}
		s.used[i] = true
		s.next++
		return st
	}
	return s.fallback
}

// answered notes when request n was answered, and records its timing as
// req-NNN.timing: arrival and answer in Unix nanoseconds, and the status;
// s.mu is held.
func (s *Server) answered(n, status int) {
	r := &s.received[n-1]
	r.Answered, r.Status = time.Now(), status
	s.record(fmt.Sprintf("req-%03d.timing", n), fmt.Appendf(nil, "%d %d %d\n", r.Arrived.UnixNano(), r.Answered.UnixNano(), status))
}

// record writes one recording file; s.mu is held.
func (s *Server) record(name string, data []byte) {
	if s.recordDir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(s.recordDir, name), data, 0o644); err != nil && s.err == nil {
		s.err = err
	}
}

// render turns step st into the answer to request n; s.mu is held.
func (s *Server) render(n int, st Step, q *request) answer {
	a := answer{status: st.Status, header: st.Headers}
	if a.status == 0 {
		a.status = http.StatusOK
	}
	a.delay, _ = st.delay() // validated by LoadScript; a bad one means no delay
	switch {
	case st.Raw != "":
		a.body = []byte(st.Raw)
	case st.Error != nil:
		a.body = errorJSON(*st.Error)
	case refused(st, q) != "":
		a.status = http.StatusBadRequest
		a.body = errorJSON(ErrorBody{Message: refused(st, q), Type: "invalid_request_error"})
	case s.whole || !q.wantsStream():
		a.body = s.completion(n, st, q)
	default:
		a.events, a.stall, a.cut = s.events(n, st, q), st.StallAfter, st.CutAfter
	}
	return a
}

// Wire types of a chat completion, in the field order OpenAI sends.
type (
	completion struct {
		ID                string    `json:"id"`
		Object            string    `json:"object"`
		Created           int64     `json:"created"`
		Model             string    `json:"model"`
		Choices           []choice  `json:"choices"`
		Usage             usageJSON `json:"usage"`
		SystemFingerprint string    `json:"system_fingerprint"`
	}
	choice struct {
		Index        int       `json:"index"`
		Message      message   `json:"message"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason string    `json:"finish_reason"`
	}
	message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		Reasoning string     `json:"reasoning_content,omitempty"`
		Refusal   *string    `json:"refusal"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	usageJSON struct {
		PromptTokens        int           `json:"prompt_tokens"`
		CompletionTokens    int           `json:"completion_tokens"`
		TotalTokens         int           `json:"total_tokens"`
		PromptTokensDetails promptDetails `json:"prompt_tokens_details"`
		CompletionDetails   *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details,omitempty"`
		CacheHit int `json:"prompt_cache_hit_tokens,omitempty"`
	}
	promptDetails struct {
		CachedTokens int `json:"cached_tokens"`
	}
)

// completion renders a chat completion for step st; s.mu is held.
func (s *Server) completion(n int, st Step, q *request) []byte {
	c, err := s.build(n, st, q)
	if err == nil {
		var out []byte
		if out, err = json.Marshal(c); err == nil {
			return out
		}
	}
	return errorJSON(ErrorBody{Message: "reviewtest: cannot encode the completion: " + err.Error(), Type: "server_error"})
}

// build makes the chat completion for step st; s.mu is held.
func (s *Server) build(n int, st Step, q *request) (completion, error) {
	model := "unknown"
	if q.req != nil && q.req.Model != "" {
		model = q.req.Model
	}
	msg := message{Role: "assistant", Reasoning: st.Reasoning}
	if st.Content != "" || len(st.ToolCalls) == 0 {
		msg.Content = &st.Content
	}
	replySize := len(st.Content)
	for _, c := range st.ToolCalls {
		s.calls++
		tc := toolCall{ID: c.ID, Type: "function", Function: function{Name: c.Name}}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", s.calls)
		}
		switch {
		case c.RawArguments != "":
			tc.Function.Arguments = c.RawArguments
		case len(c.Arguments) > 0:
			var buf bytes.Buffer
			if json.Compact(&buf, c.Arguments) == nil {
				tc.Function.Arguments = buf.String()
			} else {
				tc.Function.Arguments = string(c.Arguments)
			}
		default:
			tc.Function.Arguments = "{}"
		}
		tc.Function.Arguments = expandRefs(tc.Function.Arguments, q)
		replySize += len(tc.Function.Name) + len(tc.Function.Arguments)
		msg.ToolCalls = append(msg.ToolCalls, tc)
	}
	finish := st.FinishReason
	if finish == "" {
		finish = "stop"
		if len(st.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	// Rough default usage: about four bytes a token.
	u := Usage{Prompt: (len(q.body) + 3) / 4, Completion: (replySize+3)/4 + 1}
	if st.Usage != nil {
		u = *st.Usage
	}
	if u.Total == 0 {
		u.Total = u.Prompt + u.Completion
	}
	uj := usageJSON{
		PromptTokens:        u.Prompt,
		CompletionTokens:    u.Completion,
		TotalTokens:         u.Total,
		PromptTokensDetails: promptDetails{CachedTokens: u.Cached},
		CacheHit:            u.CacheHit,
	}
	if u.Reasoning > 0 {
		uj.CompletionDetails = &struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		}{u.Reasoning}
	}
	return completion{
		ID:                fmt.Sprintf("chatcmpl-%d", n),
		Object:            "chat.completion",
		Created:           created,
		Model:             model,
		Choices:           []choice{{Message: msg, FinishReason: finish}},
		Usage:             uj,
		SystemFingerprint: "fp_reviewtest",
	}, nil
}

// refused is the 400 message for a request step st refuses, or "".
func refused(st Step, q *request) string {
	for frag, msg := range st.Reject {
		if bytes.Contains(q.body, []byte(frag)) {
			return msg
		}
	}
	if !st.RequireReasoning {
		return ""
	}
	req := q.req
	if req == nil {
		return ""
	}
	for i, m := range req.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.ReasoningContent == "" {
			return fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d", i)
		}
	}
	return ""
}

type (
	errorEnvelope struct {
		Error errorObject `json:"error"`
	}
	errorObject struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
)

// errorJSON renders an OpenAI-style error body.
func errorJSON(e ErrorBody) []byte {
	obj := errorObject{Message: e.Message, Type: e.Type}
	if e.Code != "" {
		obj.Code = &e.Code
	}
	out, err := json.Marshal(errorEnvelope{Error: obj})
	if err != nil {
		return []byte(`{"error":{"message":"reviewtest: cannot encode the scripted error","type":"server_error","param":null,"code":null}}`)
	}
	return out
}

// refCall matches $REF(call_id) in scripted arguments.
var refCall = regexp.MustCompile(`\$REF\(([^)]+)\)`)

// refInPreview finds the ref a tool-memory preview or stub names.
var refInPreview = regexp.MustCompile(`"ref": "([a-z0-9]+)"`)

// expandRefs replaces $REF(call_id) in a scripted tool call's arguments with
// the tool-memory ref of that call's result in the request: a script cannot
// know refs in advance, since they derive from the run ID.
func expandRefs(args string, q *request) string {
	if !strings.Contains(args, "$REF(") {
		return args
	}
	req := q.req
	if req == nil {
		req = &wire.Request{}
	}
	return refCall.ReplaceAllStringFunc(args, func(m string) string {
		id := refCall.FindStringSubmatch(m)[1]
		for _, msg := range req.Messages {
			if msg.Role == "tool" && msg.ToolCallID == id {
				if r := refInPreview.FindStringSubmatch(msg.Content); r != nil {
					return r[1]
				}
			}
		}
		return "no-ref-for-" + id
	})
}

// Serve starts a server for a script given as JSON and closes it when the
// test ends, failing the test if any request the client sent is not a
// valid chat-completions request.
func Serve(t testing.TB, script string) *Server {
	t.Helper()
	s, err := ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(s, "")
	t.Cleanup(func() {
		srv.Close()
		for _, r := range srv.Requests() {
			if err := ValidateRequest(r.Body); err != nil {
				t.Errorf("request %d does not match the schema: %v\n%s", r.N, err, r.Body)
			}
		}
	})
	return srv
}

// request is a chat request as received and, when it decodes, decoded:
// once per request, before the server's lock.
type request struct {
	body []byte
	req  *wire.Request // nil when the body does not decode
}

func inspect(body []byte) *request {
	q := &request{body: body}
	if req, err := wire.DecodeRequest(body); err == nil {
		q.req = req
	}
	return q
}

// forcesFunction reports whether a request's tool_choice names a function.
func (q *request) forcesFunction() bool { return q.req != nil && q.req.ForcesFunction() }
