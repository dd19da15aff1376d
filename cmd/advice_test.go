package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Each typed error of the packages below gets its advice and exit code
// here, and the line it makes reads as one sentence: the error's own
// words (after any wrapper's), then what to do.
func TestAdvice(t *testing.T) {
	const dir = "/r/.git/review"
	const site = "http://127.0.0.1:1/v1"
	wrap := func(err error) error { return fmt.Errorf("run 20260101-000000-abcd: %w", err) }
	tests := []struct {
		name string
		err  error
		line string
		code int
	}{
		{"locked", &toolmem.LockedError{Dir: dir, Waited: 300 * time.Millisecond},
			"tool memory at /r/.git/review is in use by another review (waited 300ms): wait for it to finish or use --store DIR", ExitLocked},
		{"held, for doctor", &heldError{LockedError: &toolmem.LockedError{Dir: dir}, pid: 4321},
			"tool memory at /r/.git/review is in use by a review running now (process 4321): 'review doctor' checks it once that review ends ('runs', 'replay' and 'memory' read it meanwhile); wait for it, set REVIEW_LOCK_WAIT (e.g. 5m) to wait here, or use --store DIR", ExitLocked},
		{"held, changed during every copy", &heldError{LockedError: &toolmem.LockedError{Dir: dir, Waited: 1200 * time.Millisecond}, pid: 4321, copied: true},
			"tool memory at /r/.git/review is in use by a review running now (process 4321), which changed it during every copy taken to read it (for 1.2s): try again, or wait for that review to end", ExitLocked},
		{"damaged store", &toolmem.DamagedError{Dir: dir, Reason: "its MANIFEST is missing"},
			"tool memory at /r/.git/review is damaged (its MANIFEST is missing); it was left as it is: move it aside to start afresh (mv /r/.git/review /r/.git/review.damaged), and see 'review doctor --store /r/.git/review' for details", ExitDamaged},
		{"damaged record", fmt.Errorf("reading run x: %w", &toolmem.DamagedError{Dir: dir, Record: "run x", Reason: "it fails its checksum"}),
			"reading run x: run x in tool memory at /r/.git/review is damaged (it fails its checksum); the other records are readable: 'review doctor' lists every damaged one", ExitDamaged},
		{"read-only", &toolmem.ReadOnlyError{Dir: dir},
			"tool memory at /r/.git/review is read-only: 'review runs', 'replay', 'memory' and 'doctor' can read it, but a review needs a store it can write: make it writable (chmod u+w /r/.git/review) or choose another with --store DIR", ExitError},
		{"no access", &toolmem.AccessError{Dir: dir, Reason: "permission denied"},
			"cannot open tool memory at /r/.git/review: permission denied: make it readable and writable by you, or choose another with --store DIR", ExitError},
		{"not a store", &toolmem.NotStoreError{Dir: "/home/me/notes", Holds: "precious.txt"},
			"/home/me/notes is not a tool memory directory (it holds precious.txt): choose an empty or new directory with --store DIR", ExitError},
		{"disk full", &toolmem.DiskFullError{Dir: dir, What: "writing output abc"},
			"writing output abc in tool memory at /r/.git/review: no space left on the device: free space on its file system, or choose another store with --store DIR", ExitError},
		{"too little room", &toolmem.DiskFullError{Dir: dir, Free: 1 << 20, Need: toolmem.MinFree},
			"tool memory at /r/.git/review: 1 MiB free on its file system, 64 MiB needed: free space on its file system, or choose another store with --store DIR", ExitError},
		{"not a repository", &toolmem.GitDirError{Dir: "/tmp/x"},
			"/tmp/x is not inside a git repository: run review in one, or choose a store with --store DIR", ExitError},
		{"no git directory", &toolmem.GitDirError{Dir: "/tmp/x", Reason: "unsafe repository"},
			"cannot locate the git directory of /tmp/x (unsafe repository): run review in a git repository, or choose a store with --store DIR", ExitError},
		{"no directory", toolmem.ErrNoDir,
			"tool memory directory is empty: choose one with --store DIR", ExitError},
		{"no such ref", &toolmem.NotFoundError{Kind: toolmem.KindRef, ID: "nosuchref2"},
			`no stored output with ref "nosuchref2": list refs with 'review memory list'`, ExitError},
		{"no such run", &toolmem.NotFoundError{Kind: toolmem.KindRun, ID: "20200101-000000-nosuch"},
			`no run with ID "20200101-000000-nosuch": list runs with 'review runs'`, ExitError},
		{"not a work tree", &diffctx.RepoError{Dir: "/tmp/x"},
			"not a git repository: /tmp/x is not inside a git work tree; run review in a clone of the repository", ExitError},
		{"no work tree", &diffctx.RepoError{Dir: "/r/.git", Bare: true},
			"not a git repository: /r/.git has no work tree; run review in a clone of the repository", ExitError},
		{"since", &diffctx.SinceError{Since: "other", SHA: strings.Repeat("a", 40), Head: strings.Repeat("b", 40)},
			"--since other (aaaaaaaaaaaa) is not an ancestor of head bbbbbbbbbbbb (the branch was rebased or force-pushed since): review the whole change without --since", ExitError},
		{"window", &review.WindowError{Fixed: 1500, Overview: 900, Turn: 800, Window: 3000, Reserve: 750, Input: 2250, Want: 5000},
			"context window too small for a review: the system prompt and tool definitions take 1500 tokens, the smallest overview of the changed files 900 and a minimal review turn 800 more, but a context window of 3000 with an answer reserve of 750 leaves 2250: use --context-window 5000 or more", ExitUsage},
		{"cap", &review.CapError{Reason: result.ReasonMaxPromptTokens, First: 1200, Need: 2400},
			"cap too low for a review: the first request alone takes 1200 prompt tokens, and a review needs room for at least two (2400 tokens); raise --max-prompt-tokens", ExitError},
		{"cap with cost", &review.CapError{Reason: result.ReasonMaxCost, First: 1200, Need: 2400, Cost: ", $0.02"},
			"cap too low for a review: the first request alone takes 1200 prompt tokens, and a review needs room for at least two (2400 tokens, $0.02); raise --max-cost", ExitError},
		{"first byte", wrap(&llm.TimeoutError{Site: site, Phase: llm.PhaseFirstByte, Limit: 300 * time.Millisecond}),
			"run 20260101-000000-abcd: model endpoint http://127.0.0.1:1/v1 sent nothing within 300ms of a streamed request: check that the server is up and not overloaded; a local server loading a large model or reading a long prompt may need more: --first-byte-timeout (REVIEW_FIRST_BYTE_TIMEOUT); a server that does not stream, --stream=false", ExitError},
		{"stall", &llm.TimeoutError{Site: site, Phase: llm.PhaseStall, Limit: time.Minute, Received: 1234, Attempts: 4},
			"model endpoint http://127.0.0.1:1/v1 stalled: nothing for 1m0s in the middle of a streamed answer, after 1,234 bytes (4 attempts): check the server's load and logs; allow longer pauses with --first-byte-timeout, or read answers whole with --stream=false", ExitError},
		{"stream timeout", &llm.TimeoutError{Site: site, Phase: llm.PhaseStream, Limit: 2 * time.Minute, Received: 1},
			"model endpoint http://127.0.0.1:1/v1 did not finish its streamed answer within 2m0s (1 byte received): allow more time per request with --timeout (REVIEW_TIMEOUT), or a smaller answer with --answer-reserve", ExitError},
		{"answer timeout", wrap(&llm.TimeoutError{Site: site, Phase: llm.PhaseAnswer, Limit: 200 * time.Millisecond, Attempts: 4}),
			"run 20260101-000000-abcd: model endpoint http://127.0.0.1:1/v1 did not answer within 200ms (4 attempts): check that the server is up and not overloaded, or allow more time per request with --timeout (REVIEW_TIMEOUT)", ExitError},
		{"answer too large", wrap(&llm.AnswerSizeError{Site: site, Bytes: 10 << 20, Limit: 256 << 10, MaxTokens: 8192, Answers: 2, Attempts: 2}),
			"run 20260101-000000-abcd: model endpoint http://127.0.0.1:1/v1 sent an answer of 10.0 MiB, over the limit of 256 KiB (32 bytes for each of the 8192 tokens asked for), in each of 2 answers: the model may have repeated itself, or the server ignores max_tokens: run the review again or try another model; if answers this long are expected, raise --answer-reserve (the limit grows with it)", ExitError},
		{"truncated", &llm.TruncatedError{Site: site, Received: 99},
			"model endpoint http://127.0.0.1:1/v1 closed the stream before the answer ended (99 bytes received, no finish_reason): check the server's logs (a proxy's idle timeout cuts long streams), or read answers whole with --stream=false", ExitError},
		{"refused", &llm.ConnectError{Site: site, Detail: "connection refused", Attempts: 2},
			"cannot connect to model endpoint http://127.0.0.1:1/v1 (2 attempts): connection refused: check OPENAI_BASE_URL (or --base-url) and that the server is running", ExitError},
		{"refused, set by flag", &llm.ConnectError{Site: site, Setting: "--base-url", Detail: "connection refused"},
			"cannot connect to model endpoint http://127.0.0.1:1/v1: connection refused: check --base-url and that the server is running", ExitError},
		{"no host", &llm.ConnectError{Site: "http://h/v1", Setting: "base_url in .review.yaml:3", NoHost: true, Detail: "no such host"},
			"cannot resolve the host of model endpoint http://h/v1: no such host: check base_url in .review.yaml:3", ExitError},
		{"bad URL", &llm.URLError{URL: "ftp://example.com/v1"},
			`invalid model endpoint URL "ftp://example.com/v1": set OPENAI_BASE_URL or --base-url to http(s)://host[:port]/v1`, ExitError},
		{"unparsable URL", &llm.URLError{Reason: `invalid character " " in host name`},
			`invalid model endpoint URL: invalid character " " in host name: set OPENAI_BASE_URL or --base-url to http(s)://host[:port]/v1`, ExitError},
		{"404", &llm.APIError{Status: 404, Message: "model not found"},
			"model endpoint answered HTTP 404 (model not found): check --model and OPENAI_BASE_URL (or --base-url) (it usually ends in /v1, also for Ollama, vLLM and llama.cpp)", ExitError},
		{"404, set by config", &llm.APIError{Status: 404, Message: "model not found", URLSetting: "OPENAI_BASE_URL"},
			"model endpoint answered HTTP 404 (model not found): check --model and OPENAI_BASE_URL (it usually ends in /v1, also for Ollama, vLLM and llama.cpp)", ExitError},
		{"other HTTP errors say their own advice", &llm.APIError{Status: 401, NoKey: true},
			"model endpoint requires an API key (HTTP 401) and none was sent: set OPENAI_API_KEY", ExitError},
		{"no model", fmt.Errorf("encoding the request: %w", llm.ErrNoModel),
			"encoding the request: no model named: set --model", ExitError},
		{"no tokenizer", &llm.TokenizerError{URL: "http://127.0.0.1:1", Reason: "GET /props answered HTTP 404 Not Found: it is not a llama.cpp server"},
			"the server at http://127.0.0.1:1 cannot count tokens: GET /props answered HTTP 404 Not Found: it is not a llama.cpp server: --tokenizer server needs a llama.cpp server (llama-server) at OPENAI_BASE_URL (or --base-url); count with --tokenizer tiktoken", ExitUsage},
		{"no tokenizer, set by flag", &llm.TokenizerError{URL: "http://h:8080", Setting: "--base-url", Reason: "POST /tokenize: HTTP 404 Not Found"},
			"the server at http://h:8080 cannot count tokens: POST /tokenize: HTTP 404 Not Found: --tokenizer server needs a llama.cpp server (llama-server) at --base-url; count with --tokenizer tiktoken", ExitUsage},
		{"untyped", errors.New("something else"), "something else", ExitError},
		{"interrupted wins", fmt.Errorf("%w: %w", context.Canceled, &toolmem.LockedError{Dir: dir}),
			"context canceled: tool memory at /r/.git/review is in use by another review (waited 0s): wait for it to finish or use --store DIR", ExitInterrupted},
	}
	// Every adviser must advise on some error of the table: one shadowed
	// by an earlier one would never speak.
	reached := make([]bool, len(advisers))
	for _, tt := range tests {
		for i, a := range advisers {
			if _, _, ok := a(tt.err); ok {
				reached[i] = true
				break
			}
		}
	}
	for i, ok := range reached {
		if !ok {
			t.Errorf("adviser %d advises on no error of the table", i)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorLine(tt.err); got != tt.line {
				t.Errorf("line\n%s\nwant\n%s", got, tt.line)
			}
			if got := exitCode(tt.err); got != tt.code {
				t.Errorf("exit code %d, want %d", got, tt.code)
			}
			if strings.Contains(tt.err.Error(), "--") {
				t.Errorf("the error names a flag itself: %q", tt.err.Error())
			}
		})
	}
}

// A wrapper's words after the typed error stay in place, and the advice
// ends the line.
func TestAdviceAfterWrapper(t *testing.T) {
	err := fmt.Errorf("%w; the run is kept", &toolmem.LockedError{Dir: "/s", Waited: time.Second})
	want := "tool memory at /s is in use by another review (waited 1s); the run is kept: wait for it to finish or use --store DIR"
	if got := errorLine(err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
