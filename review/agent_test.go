package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/tools/toolstest"

	openai "github.com/sashabaranov/go-openai"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
)

// isolateGit keeps the user's git configuration out of a test.
func isolateGit(tb testing.TB) {
	tb.Helper()
	gittest.Isolate(tb)
}

// newRepo creates a repository whose main branch holds base and whose
// feature branch, checked out, changes it to head. It returns the work tree.
func newRepo(tb testing.TB, base, head map[string]string) string {
	tb.Helper()
	return gittest.Change(tb, base, head)
}

// numbered is n lines "<prefix> i".
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// smallRepo changes lines 10 and 11 of a.go, a 40-line file.
func smallRepo(tb testing.TB) string {
	tb.Helper()
	base := numbered("// line", 40)
	head := strings.Replace(strings.Replace(base, "// line 10\n", "// changed 10\n", 1), "// line 11\n", "// changed 11\n", 1)
	return newRepo(tb, map[string]string{"a.go": base, "b.go": "package b\n"}, map[string]string{"a.go": head})
}

// testModel is the model the agent tests use.
const testModel = "gpt-4o"

// newSession prepares a review of the repository at dir with a real store
// and real tools, talking to model; edit may adjust the agent (its budget
// included) once the plan is known.
func newSession(tb testing.TB, dir string, model llm.Model, edit func(*Agent, *Plan)) *Session {
	tb.Helper()
	plan, st := prepareRepo(tb, dir)
	return startSession(tb, plan, st, model, edit)
}

// prepareRepo plans the review of the repository at dir and opens a store
// for it.
func prepareRepo(tb testing.TB, dir string) (*Plan, *toolmem.Store) {
	tb.Helper()
	plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Head: "HEAD", Config: result.Config{Model: testModel, Budget: conversation.DefaultBudget(llm.Lookup(testModel).Window)}})
	if err != nil {
		tb.Fatal(err)
	}
	return plan, toolstest.Store(tb)
}

// configSession plans the review of dir with cfg (its model, budget,
// caps and jobs) and starts it in a new store, the agent set as cfg
// says, talking to srv.
func configSession(tb testing.TB, dir string, cfg result.Config, srv *reviewtest.Server) (*Session, *Plan) {
	tb.Helper()
	plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Head: "HEAD", Config: cfg})
	if err != nil {
		tb.Fatal(err)
	}
	client := llm.NewClient(llm.ClientConfig{BaseURL: srv.URL, MaxAttempts: 1, Concurrency: max(cfg.Jobs, 1)})
	s := startSession(tb, plan, toolstest.Store(tb), client, func(a *Agent, _ *Plan) {
		a.Model, a.Budget, a.Jobs = cfg.Model, cfg.Budget, cfg.Jobs
	})
	return s, plan
}

// startSession starts a run of plan in st.
func startSession(tb testing.TB, plan *Plan, st *toolmem.Store, model llm.Model, edit func(*Agent, *Plan)) *Session {
	tb.Helper()
	a := &Agent{Config: result.Config{Model: testModel, Budget: plan.Budget, OffDiff: result.KeepFileLevel}, Client: model, Store: st, Counter: plan.Counter, Tools: tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st})}
	if edit != nil {
		edit(a, plan)
	}
	s, err := a.Start(plan, Settings{Budget: a.Budget, OffDiff: a.OffDiff})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sentRequest is what the tests read of a request on the wire.
type sentRequest struct {
	wire.Request
	raw []json.RawMessage
}

// requests decodes what the server received, checking that each request
// of the loop starts with every message of the one before, byte for byte.
func requests(t *testing.T, srv *reviewtest.Server) []sentRequest {
	t.Helper()
	var out []sentRequest
	for i, r := range srv.Requests() {
		w, err := wire.DecodeRequest(r.Body)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		req := sentRequest{Request: *w}
		var raw struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &raw); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		req.raw = raw.Messages
		if i > 0 {
			prev := out[i-1].raw
			if len(req.raw) <= len(prev) {
				t.Fatalf("request %d has %d messages, request %d had %d", i+1, len(req.raw), i, len(prev))
			}
			for j := range prev {
				if !bytes.Equal(prev[j], req.raw[j]) {
					t.Fatalf("request %d rewrote message %d:\n%s\n%s", i+1, j+1, prev[j], req.raw[j])
				}
			}
		}
		out = append(out, req)
	}
	return out
}

func TestLoopAnswersEveryCallInOrder(t *testing.T) {
	srv := reviewtest.Serve(t, `[
	  {"tool_calls": [
	    {"id": "c1", "name": "read_file_hunk", "arguments": {"path": "a.go", "start_line": 9, "end_line": 12, "revision": null}},
	    {"id": "c2", "name": "list_project_files", "arguments": {}},
	    {"id": "c3", "name": "rm_rf", "arguments": {"path": "/"}},
	    {"id": "c4", "name": "read_file_hunk", "raw_arguments": "{\"path\": \"a.go\","},
	    {"id": "c5", "name": "read_tool_output", "arguments": {"ref": "nosuchref1", "start_line": 1}}
	  ]},
	  {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Two lines changed.", "findings": [
	    {"path": "a.go", "line": 10, "end_line": null, "severity": "low", "category": "correctness", "title": "Renamed line", "body": "Line 10 changed.", "suggestion": null}]}}]}
	]`)
	s := newSession(t, smallRepo(t), newTestClient(srv.URL), nil)
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Submitted || len(res.Findings) != 1 || res.Steps != 2 || res.Usage.Requests != 2 {
		t.Fatalf("result: submitted %v, %d findings, %d steps, %d requests", res.Submitted, len(res.Findings), res.Steps, res.Usage.Requests)
	}

	reqs := requests(t, srv)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages[len(reqs[0].Messages):]
	if len(msgs) != 6 || msgs[0].Role != "assistant" {
		t.Fatalf("request 2 added %d messages, want the assistant's and 5 results", len(msgs))
	}
	want := []struct{ id, text string }{
		{"c1", "10: // changed 10"},
		{"c2", "a.go"},
		{"c3", `unknown tool "rm_rf"`},
		{"c4", "arguments must be a JSON object"},
		{"c5", "nosuchref1"},
	}
	for i, w := range want {
		m := msgs[i+1]
		if m.Role != "tool" || m.ToolCallID != w.id || !strings.Contains(m.Content, w.text) {
			t.Errorf("result %d: %s %s %q, want a tool result for %s holding %q", i+1, m.Role, m.ToolCallID, m.Content, w.id, w.text)
		}
	}

	// Every output but the page of read_tool_output is in tool memory,
	// and the step that asked for them names them.
	steps, err := s.Store.Steps(s.Run.ID)
	if err != nil || len(steps) != 2 {
		t.Fatalf("steps: %d, %v", len(steps), err)
	}
	if len(steps[0].Refs) != 4 {
		t.Fatalf("step 1 refs %v, want 4", steps[0].Refs)
	}
	for i, ref := range steps[0].Refs {
		meta, err := s.Store.Meta(ref)
		if err != nil || meta.CallID != want[i].id || meta.Step != 1 {
			t.Errorf("ref %s: %+v, %v; want call %s of step 1", ref, meta, err, want[i].id)
		}
	}
	run, err := s.Store.Run(s.Run.ID)
	if err != nil || run.Status != toolmem.StatusComplete {
		t.Fatalf("run status %q, %v", run.Status, err)
	}

	// Our count of the prompts is the count of each request as sent,
	// tool definitions included, however it is kept along the way.
	// The figures' counter: exact, or estimates when the server counts.
	c := s.figureCounter()
	own := 2 * record.ToolTokens(c, offered(s.Tools, nil, nil).Definitions())
	own += c.CountMessages(s.History.Messages()[:len(reqs[0].Messages)])
	own += c.CountMessages(s.History.Messages()[:len(reqs[1].Messages)])
	if res.Usage.Own != own {
		t.Errorf("own prompt tokens %d, want %d", res.Usage.Own, own)
	}
}

// forcedSubmit is the tool_choice that forces submit_review.
const forcedSubmit = `{"type":"function","function":{"name":"submit_review"}}`

func TestLoopEndings(t *testing.T) {
	const (
		list   = `{"tool_calls": [{"name": "list_project_files", "arguments": {}}]}`
		submit = `{"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}`
	)
	overAt := func(extra int) func(*Agent, *Plan) {
		// A window whose share for exploring (conversation.StopShare of the input
		// budget) holds the first request, tool definitions included
		// and counted exactly, plus extra tokens.
		return func(a *Agent, p *Plan) {
			a.Budget.AnswerReserve = 100
			exact := p.Counter.CountMessages(p.Messages) + record.ToolTokens(p.Counter, p.Tools)
			a.Budget.ContextWindow = a.Budget.AnswerReserve + int(float64(exact+extra)/conversation.StopShare)
		}
	}
	tests := []struct {
		name   string
		script string
		edit   func(*Agent, *Plan)

		requests  int
		submitted bool
		summary   string
		// lastUser is the start of the last user message of the last
		// request; choice its tool_choice.
		lastUser string
		choice   string
		// ids are the tool_call_ids of the results in the last request.
		ids []string
	}{
		{
			name:     "prose gets one nudge, then its last text is the summary",
			script:   `[{"content": "Looks fine."}, {"content": "Still fine: no findings."}]`,
			requests: 2, summary: "Still fine: no findings.", lastUser: "Please finish now", choice: `"auto"`,
		},
		{
			name:     "an empty answer to the nudge keeps the earlier text",
			script:   `[{"content": "Looks fine."}, {"content": ""}]`,
			requests: 2, summary: "Looks fine.", lastUser: "Please finish now", choice: `"auto"`,
		},
		{
			name:     "a nudge answered with submit_review",
			script:   `[{"content": "Looks fine."}, ` + submit + `]`,
			requests: 2, submitted: true, summary: "Fine.", lastUser: "Please finish now", choice: `"auto"`,
		},
		{
			name:     "max steps reached: the next request forces submit_review",
			script:   `[` + list + `, ` + list + `, ` + submit + `]`,
			edit:     func(a *Agent, _ *Plan) { a.Budget.MaxSteps = 2 },
			requests: 3, submitted: true, summary: "Fine.", lastUser: "The exploration budget", choice: forcedSubmit,
		},
		{
			name:     "a forced choice ignored falls back to one nudge, then ends the loop",
			script:   `[` + list + `, ` + list + `, ` + list + `]`,
			edit:     func(a *Agent, _ *Plan) { a.Budget.MaxSteps = 1 },
			requests: 3, lastUser: "Please finish now", choice: `"auto"`,
		},
		{
			name:     "a submission that cannot be read is an error result, then a good one",
			script:   `[{"tool_calls": [{"name": "submit_review", "raw_arguments": "{\"summary\": 7}"}]}, ` + submit + `]`,
			requests: 2, submitted: true, summary: "Fine.", lastUser: "Review the change", choice: `"auto"`,
		},
		{
			name:     "repeated call IDs in one reply are made unique",
			script:   `[{"tool_calls": [{"id": "same", "name": "list_project_files"}, {"id": "same", "name": "list_project_files"}]}, ` + submit + `]`,
			requests: 2, submitted: true, summary: "Fine.", lastUser: "Review the change", choice: `"auto"`,
			ids: []string{"same", "same_2"},
		},
		{
			name:     "tool definitions count: a first request over budget forces submit_review",
			script:   `[` + submit + `]`,
			edit:     overAt(-1),
			requests: 1, submitted: true, summary: "Fine.", lastUser: "The exploration budget", choice: forcedSubmit,
		},
		{
			name: "an output that fills the budget forces submit_review",
			script: `[{"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "a.go", "start_line": 1, "end_line": 40}}]}, ` +
				submit + `]`,
			edit:     overAt(100),
			requests: 2, submitted: true, summary: "Fine.", lastUser: "The exploration budget", choice: forcedSubmit,
		},
	}
	dir := smallRepo(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tt.script)
			s := newSession(t, dir, newTestClient(srv.URL), tt.edit)
			res, err := s.Review(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			reqs := requests(t, srv)
			if len(reqs) != tt.requests || res.Steps != tt.requests {
				t.Fatalf("%d requests, %d steps; want %d", len(reqs), res.Steps, tt.requests)
			}
			if res.Submitted != tt.submitted || res.Summary != tt.summary {
				t.Errorf("submitted %v, summary %q; want %v, %q", res.Submitted, res.Summary, tt.submitted, tt.summary)
			}
			last := reqs[len(reqs)-1]
			if string(last.ToolChoice) != tt.choice {
				t.Errorf("last tool_choice %s, want %s", last.ToolChoice, tt.choice)
			}
			for i := len(last.Messages) - 1; i >= 0; i-- {
				if m := last.Messages[i]; m.Role == "user" {
					if !strings.HasPrefix(m.Content, tt.lastUser) {
						t.Errorf("last user message %q, want it to start %q", m.Content, tt.lastUser)
					}
					break
				}
			}
			if tt.ids != nil {
				var ids []string
				for _, m := range last.Messages {
					if m.Role == "tool" {
						ids = append(ids, m.ToolCallID)
					}
				}
				if fmt.Sprint(ids) != fmt.Sprint(tt.ids) {
					t.Errorf("tool_call_ids %v, want %v", ids, tt.ids)
				}
			}
			if err := conversation.Validate(s.History.Messages()); err != nil {
				t.Errorf("the conversation left behind is not valid: %v", err)
			}
		})
	}
}

// TestLoopStopsMidReply interrupts a review while the tools of a reply run:
// every call still gets a result, so the recorded conversation stays valid
// and a follow-up question on the run works.
func TestLoopStopsMidReply(t *testing.T) {
	srv := reviewtest.Serve(t, `[
	  {"tool_calls": [
	    {"id": "c1", "name": "list_project_files"},
	    {"id": "c2", "name": "read_file_hunk", "arguments": {"path": "a.go", "start_line": 1, "end_line": 5}}
	  ]},
	  {"content": "The change renames two comment lines."}
	]`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newSession(t, smallRepo(t), newTestClient(srv.URL), func(a *Agent, _ *Plan) {
		a.Progress = func(Progress) { cancel() }
	})
	if _, err := s.Review(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	run, err := s.Store.Run(s.Run.ID)
	if err != nil || run.Status != toolmem.StatusInterrupted {
		t.Fatalf("run status %q, %v; want interrupted", run.Status, err)
	}
	raw, err := record.LoadConversation(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var conv conversation.History
	if err := json.Unmarshal(raw, &conv); err != nil {
		t.Fatal(err)
	}
	if err := conversation.Validate(conv.Messages()); err != nil {
		t.Fatalf("recorded conversation: %v", err)
	}
	results := 0
	for _, m := range conv.Messages() {
		if m.Role == conversation.Tool {
			results++
			if !strings.HasPrefix(m.Content, "Not run") {
				t.Errorf("result for %s: %q", m.ToolCallID, m.Content)
			}
		}
	}
	if results != 2 {
		t.Fatalf("%d results, want 2", results)
	}

	s.Progress = nil
	again, err := s.Resume(context.Background(), s.Run.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := again.Ask(context.Background(), "What does the change do?", AskOptions{Limits: conversation.LimitsFrom(s.Budget)})
	if err != nil {
		t.Fatalf("follow-up on the interrupted run: %v", err)
	}
	if ans.Answer != "The change renames two comment lines." {
		t.Errorf("answer %q", ans.Answer)
	}
}

func TestUniqueCallIDs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"a b", "a b"},
		{"a a a", "a a_2 a_3"},
		{"a a a_2", "a a_2 a_2_2"},
		{"x y x y", "x y x_2 y_2"},
	}
	for _, tt := range tests {
		var calls []conversation.ToolCall
		for _, id := range strings.Fields(tt.in) {
			calls = append(calls, conversation.ToolCall{ID: id})
		}
		uniqueCallIDs(calls)
		var got []string
		for _, c := range calls {
			got = append(got, c.ID)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("uniqueCallIDs(%q) = %q, want %q", tt.in, strings.Join(got, " "), tt.want)
		}
	}
}

// fakeModel is a Model in the process: it encodes each request exactly as
// Client does, hands the body to the send hook, and decodes a reply built
// by next, so everything but the HTTP exchange and the model itself runs.
type fakeModel struct {
	// next returns the reply to the n-th request (from 1).
	next func(n int, req llm.Request) conversation.Message
	n    int
}

func (m *fakeModel) Complete(ctx context.Context, req llm.Request) (*llm.Reply, error) {
	body, err := llm.EncodeRequest(req)
	if err != nil {
		return nil, err
	}
	if hook := llm.SendHook(ctx); hook != nil {
		hook(body)
	}
	m.n++
	msg := m.next(m.n, req)
	w := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: msg.Content}
	finish := openai.FinishReasonStop
	for _, tc := range msg.ToolCalls {
		w.ToolCalls = append(w.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		finish = openai.FinishReasonToolCalls
	}
	resp, err := json.Marshal(openai.ChatCompletionResponse{
		ID: fmt.Sprintf("chatcmpl-%d", m.n), Object: "chat.completion", Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: w, FinishReason: finish}},
		Usage:   openai.Usage{PromptTokens: len(body) / 4, CompletionTokens: 10, TotalTokens: len(body)/4 + 10},
	})
	if err != nil {
		return nil, err
	}
	r, err := llm.DecodeReply(200, resp)
	if err != nil {
		return &llm.Reply{Request: body, Response: resp, Attempts: 1}, err
	}
	r.Request, r.Response, r.Attempts = body, resp, 1
	return r, nil
}

// FuzzLoopToolCalls hands the loop tool calls with any name, ID and
// arguments a model might send, two to a reply: whatever they hold, the
// review ends without error, every call is answered in order, and the
// conversation stays valid.
func FuzzLoopToolCalls(f *testing.F) {
	f.Add("read_file_hunk", "c1", `{"path": "a.go", "start_line": 1, "end_line": 3}`)
	f.Add("read_file_hunk", "c1", `{"path": "../../etc/passwd", "start_line": 1, "end_line": 3}`)
	f.Add("read_file_hunk", "", `{"path": "a.go",`)
	f.Add("search_in_project", "same", `{"pattern": "(unclosed"}`)
	f.Add("read_tool_output", "c1", `{"ref": "aaaaaaaaaa", "grep": "x"}`)
	f.Add("get_file_diff", "c1", `null`)
	f.Add("submit_review", "c1", `{"summary": "s", "findings": [{"path": "", "line": -1, "severity": "HIGH"}]}`)
	f.Add("submit_review", "c1", `[]`)
	f.Add("", "", "")
	f.Add("list_project_files\x00", "c\n1", "{\"limit\": 1e309}")
	plan, st := prepareRepo(f, smallRepo(f))
	f.Fuzz(func(t *testing.T, name, id, args string) {
		var sent int
		model := &fakeModel{next: func(n int, req llm.Request) conversation.Message {
			if n == 1 {
				sent = len(req.Messages)
				return conversation.Message{ToolCalls: []conversation.ToolCall{
					{ID: id, Name: name, Arguments: args},
					{ID: id, Name: name, Arguments: args},
				}}
			}
			return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: "done", Name: toolname.SubmitReview, Arguments: `{"summary": "ok", "findings": []}`}}}
		}}
		s := startSession(t, plan, st, model, nil)
		res, err := s.Review(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Steps < 1 || res.Steps > 2 {
			t.Fatalf("%d steps", res.Steps)
		}
		if err := conversation.Validate(s.History.Messages()); err != nil {
			t.Fatal(err)
		}
		msgs := s.History.Messages()[sent:]
		if len(msgs) < 3 || msgs[0].Role != conversation.Assistant {
			t.Fatalf("the reply and its results are not in the conversation: %d messages", len(msgs))
		}
		for i, tc := range msgs[0].ToolCalls {
			if r := msgs[1+i]; r.Role != conversation.Tool || r.ToolCallID != tc.ID || r.Content == "" {
				t.Fatalf("call %d (%q) answered by %+v", i+1, tc.ID, r)
			}
		}
	})
}

// newTestClient is a model client for a scripted server, with retries fast
// enough for tests.
func newTestClient(url string) *llm.Client {
	return llm.NewClient(llm.ClientConfig{
		BaseURL:     url,
		APIKey:      "sk-test-0123456789abcdef",
		Timeout:     5 * time.Second,
		MaxAttempts: 4,
		BaseDelay:   time.Millisecond,
		MaxDelay:    5 * time.Millisecond,
	})
}
