package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/rogpeppe/go-internal/testscript"
)

// o200k is tiktoken-go's own o200k_base encoder, from its offline loader:
// a count independent of review's embedded tables and of its counter.
var o200k = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	return tiktoken.GetEncoding("o200k_base")
})

// requestTokens counts a recorded request as OpenAI bills chat requests:
// each message's text, name and tool calls, three tokens of framing a
// message and three for the reply's start, plus the tool definitions as
// JSON. It reads the body on its own, with no type of review's. count
// counts a text (memoCount).
func requestTokens(count func(string) int, body []byte) (prompt, maxTokens int, err error) {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Name      string          `json:"name"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools     []json.RawMessage `json:"tools"`
		MaxTokens int               `json:"max_tokens"`
		MaxCompl  int               `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 0, 0, err
	}
	n := 3
	for _, m := range req.Messages {
		n += 3 + count(m.Role) + count(m.Name)
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			n += count(text)
		} else if len(m.Content) > 0 && string(m.Content) != "null" {
			n += count(string(m.Content))
		}
		for _, tc := range m.ToolCalls {
			n += 3 + count(tc.Function.Name) + count(tc.Function.Arguments)
		}
	}
	if len(req.Tools) > 0 {
		b, err := json.Marshal(req.Tools)
		if err != nil {
			return 0, 0, err
		}
		n += count(string(b))
	}
	return n, max(req.MaxTokens, req.MaxCompl), nil
}

// memoCount counts a text with enc, once: the requests of a run repeat
// their system prompt, tool definitions and earlier turns, and
// tiktoken-go's reference encoder (a backtracking regexp) took a fifth of
// the scripts' own CPU counting them again, request after request.
func memoCount(enc *tiktoken.Tiktoken) func(string) int {
	seen := map[string]int{}
	return func(s string) int {
		n, ok := seen[s]
		if !ok {
			n = len(enc.Encode(s, nil, nil))
			seen[s] = n
		}
		return n
	}
}

// windowfits checks that every request recorded in dir, counted by
// tiktoken's own o200k encoder (requestTokens), plus the answer it asks
// room for (max_tokens), fits a window of n tokens: `windowfits dir n`.
// It prints each request's count.
func cmdWindowFits(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("windowfits", flag.ContinueOnError)
	if neg || fl.Parse(args) != nil || fl.NArg() != 2 {
		ts.Fatalf("usage: windowfits dir n")
	}
	window, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	enc, err := o200k()
	ts.Check(err)
	count := memoCount(enc)
	files := requestFiles(ts, fl.Arg(0))
	if len(files) == 0 {
		ts.Fatalf("no requests in %s", fl.Arg(0))
	}
	var over []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		prompt, answer, err := requestTokens(count, data)
		ts.Check(err)
		ts.Logf("%s: %d prompt tokens + %d for the answer", f, prompt, answer)
		if prompt+answer > window {
			over = append(over, fmt.Sprintf("%s: %d + %d", f, prompt, answer))
		}
	}
	if len(over) > 0 {
		ts.Fatalf("over the window of %d tokens:\n%s", window, strings.Join(over, "\n"))
	}
}

// explores checks that the first request of each turn recorded in dir
// offers the tools and leaves the choice to the model (tool_choice auto):
// `explores dir n...` for the numbers of those requests, or
// `explores dir @replay.json` for the first step of every turn of a run,
// read from `review replay --json`.
func cmdExplores(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: explores dir n... | @file")
	}
	var nums []string
	bodies := map[int][]byte{}
	for _, a := range args[1:] {
		if f, ok := strings.CutPrefix(a, "@"); ok {
			var r struct {
				Steps []struct {
					N       int             `json:"n"`
					Turn    int             `json:"turn"`
					Request json.RawMessage `json:"request"`
				} `json:"steps"`
			}
			ts.Check(json.Unmarshal([]byte(ts.ReadFile(f)), &r))
			seen := map[int]bool{}
			for _, s := range r.Steps {
				if !seen[s.Turn] {
					seen[s.Turn] = true
					nums = append(nums, strconv.Itoa(s.N))
					// The step's request as recorded: units side by
					// side reach the server in any order.
					bodies[s.N] = s.Request
				}
			}
			continue
		}
		nums = append(nums, a)
	}
	if len(nums) == 0 {
		ts.Fatalf("no requests to check")
	}
	for _, a := range nums {
		n, err := strconv.Atoi(a)
		ts.Check(err)
		data, ok := bodies[n]
		if !ok {
			data, err = os.ReadFile(ts.MkAbs(fmt.Sprintf("%s/req-%03d.json", args[0], n)))
			ts.Check(err)
		}
		var req struct {
			Tools      []json.RawMessage `json:"tools"`
			ToolChoice json.RawMessage   `json:"tool_choice"`
		}
		ts.Check(json.Unmarshal(data, &req))
		if len(req.Tools) < 2 || (len(req.ToolChoice) > 0 && string(req.ToolChoice) != `"auto"`) {
			ts.Fatalf("request %d offers %d tools with tool_choice %s: its exploration is cut off", n, len(req.Tools), req.ToolChoice)
		}
	}
}

// maxtokens checks that every request recorded in dir asks room for an
// answer (max_tokens or max_completion_tokens) of at most n tokens:
// `maxtokens dir n`.
func cmdMaxTokens(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: maxtokens dir n")
	}
	limit, err := strconv.Atoi(args[1])
	ts.Check(err)
	files := requestFiles(ts, args[0])
	if len(files) == 0 {
		ts.Fatalf("no requests in %s", args[0])
	}
	for _, f := range files {
		var req struct {
			MaxTokens int `json:"max_tokens"`
			MaxCompl  int `json:"max_completion_tokens"`
		}
		data, err := os.ReadFile(f)
		ts.Check(err)
		ts.Check(json.Unmarshal(data, &req))
		if n := max(req.MaxTokens, req.MaxCompl); n == 0 || n > limit {
			ts.Fatalf("%s asks room for %d answer tokens, not 1 to %d", f, n, limit)
		}
	}
}

// prunefits checks every prune event of a run against the request it
// precedes, counted by tiktoken's own o200k encoder (requestTokens) from
// `review replay --json`: the event's request_tokens is never below the
// count, and the request is at most the event's line unless the event
// says the history is at its floor: `prunefits replay.json`. With -apart
// n, no two prunes are fewer than n turns apart (the prefix a prune
// leaves holds). It prints each prune's figures.
func cmdPruneFits(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("prunefits", flag.ContinueOnError)
	apart := fl.Int("apart", 0, "")
	if neg || fl.Parse(args) != nil || fl.NArg() != 1 {
		ts.Fatalf("usage: prunefits [-apart n] replay.json")
	}
	var r struct {
		Steps []struct {
			N       int             `json:"n"`
			Turn    int             `json:"turn"`
			Request json.RawMessage `json:"request"`
			Events  []struct {
				Kind    string `json:"kind"`
				Line    int    `json:"line_tokens"`
				Request int    `json:"request_tokens"`
				Floor   bool   `json:"floor"`
				After   struct {
					Tokens    int  `json:"tokens"`
					Estimated bool `json:"tokens_estimated"`
				} `json:"after"`
			} `json:"events"`
		} `json:"steps"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(fl.Arg(0))), &r))
	enc, err := o200k()
	ts.Check(err)
	count := memoCount(enc)
	var bad []string
	prunes, last := 0, -1
	for _, s := range r.Steps {
		for _, e := range s.Events {
			if e.Kind != "prune" {
				continue
			}
			prunes++
			n, _, err := requestTokens(count, s.Request)
			ts.Check(err)
			ts.Logf("step %d (turn %d): %d tokens by o200k; the event says %d (history %d, estimated %v), line %d, floor %v",
				s.N, s.Turn, n, e.Request, e.After.Tokens, e.After.Estimated, e.Line, e.Floor)
			if e.Request < n {
				bad = append(bad, fmt.Sprintf("step %d: the prune event says %d tokens, the request has %d", s.N, e.Request, n))
			}
			if n > e.Line && !e.Floor {
				bad = append(bad, fmt.Sprintf("step %d: %d tokens after a prune to %d, with no floor said", s.N, n, e.Line))
			}
			if *apart > 0 && last >= 0 && s.Turn-last < *apart {
				bad = append(bad, fmt.Sprintf("step %d: turn %d prunes again %d turns after the last", s.N, s.Turn, s.Turn-last))
			}
			last = s.Turn
		}
	}
	if prunes == 0 {
		ts.Fatalf("no prune in %s", fl.Arg(0))
	}
	if len(bad) > 0 {
		ts.Fatalf("%s", strings.Join(bad, "\n"))
	}
}

// figurecheck holds a run's figures to its requests as sent, counted by
// tiktoken's own o200k encoder (requestTokens), and its plan to what it
// did: `figurecheck dry.json replay.json replay.txt dir`. Every step's
// figure in the replay's JSON is never below its request's count (and
// within 2% above it), the text replay shows the same figure, the
// efficiency's tokens sent and largest request are never below the
// requests', the requests recorded in dir are at most the plan's
// max_requests, and the expected prompt tokens are within a factor of
// two of those sent. It prints the figures.
func cmdFigureCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: figurecheck dry.json replay.json replay.txt dir")
	}
	var dry struct {
		Plan struct {
			MaxRequests int `json:"max_requests"`
			Expected    int `json:"expected_prompt_tokens"`
		} `json:"plan"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &dry))
	var r struct {
		Steps []struct {
			N       int             `json:"n"`
			Request json.RawMessage `json:"request"`
			Figures struct {
				Tokens    int  `json:"tokens"`
				Estimated bool `json:"estimated"`
			} `json:"figures"`
		} `json:"steps"`
		Efficiency struct {
			Sent      int  `json:"sent_tokens"`
			Largest   int  `json:"largest_request_tokens"`
			Estimated bool `json:"estimated"`
		} `json:"efficiency"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &r))
	text := ts.ReadFile(args[2])
	enc, err := o200k()
	ts.Check(err)
	count := memoCount(enc)
	var bad []string
	sum, largest := 0, 0
	for _, s := range r.Steps {
		n, _, err := requestTokens(count, s.Request)
		ts.Check(err)
		sum += n
		largest = max(largest, n)
		f := s.Figures.Tokens
		if f < n || float64(f) > 1.02*float64(n) || s.Figures.Estimated {
			bad = append(bad, fmt.Sprintf("step %d: figure %d (estimated %v) for %d tokens", s.N, f, s.Figures.Estimated, n))
		}
		if !strings.Contains(text, fmt.Sprintf("━━ step %d · ", s.N)) || !regexpStep(s.N, f).MatchString(text) {
			bad = append(bad, fmt.Sprintf("step %d: the text replay does not show %d tokens", s.N, f))
		}
	}
	e := r.Efficiency
	ts.Logf("%d requests, %d tokens by o200k (largest %d); the run says %d (largest %d); the plan expected %d, at most %d requests",
		len(r.Steps), sum, largest, e.Sent, e.Largest, dry.Plan.Expected, dry.Plan.MaxRequests)
	if e.Sent < sum || e.Largest < largest || e.Estimated {
		bad = append(bad, fmt.Sprintf("the run says %d tokens sent, largest %d (estimated %v): the requests have %d, largest %d", e.Sent, e.Largest, e.Estimated, sum, largest))
	}
	if n := len(requestFiles(ts, args[3])); n > dry.Plan.MaxRequests || n != len(r.Steps) {
		bad = append(bad, fmt.Sprintf("%d requests made, %d recorded; the plan said at most %d", n, len(r.Steps), dry.Plan.MaxRequests))
	}
	if x := dry.Plan.Expected; 2*x < sum || x > 2*sum {
		bad = append(bad, fmt.Sprintf("the plan expected %d prompt tokens; %d were sent", x, sum))
	}
	if len(bad) > 0 {
		ts.Fatalf("%s", strings.Join(bad, "\n"))
	}
}

// regexpStep matches the text replay's header of step n with t tokens,
// exact (no ~).
func regexpStep(n, t int) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`(?m)^━━ step %d · .* · %d tokens · `, n, t))
}
