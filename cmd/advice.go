package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// The packages below cmd return typed errors that say what failed and
// why, with the data advice needs; they do not know which flag or command
// reached them. Here each gets what to do, in the command line's terms,
// and its exit code: the one place that names flags and commands in
// errors.

// advice is what the command line adds to one typed error.
type advice struct {
	// do is what to do, naming flags and commands.
	do string
	// sep joins the error and do; ": " if empty.
	sep string
	// subject is the error's text as the command line says it, if not
	// its own: "--since X ..." where diffctx says "X ...".
	subject string
	// code is the exit code; 0 leaves it to exitCode's other cases.
	code int
}

// adviser finds one type of error in a chain and advises on it.
type adviser func(error) (error, advice, bool)

// on is the adviser of errors of type T; say returns no advice (ok false)
// for the errors of T it has nothing to add to.
func on[T error](say func(T) (advice, bool)) adviser {
	return func(err error) (error, advice, bool) {
		var t T
		if !errors.As(err, &t) {
			return nil, advice{}, false
		}
		a, ok := say(t)
		return t, a, ok
	}
}

// is is the adviser of a sentinel error.
func is(target error, a advice) adviser {
	return func(err error) (error, advice, bool) {
		if !errors.Is(err, target) {
			return nil, advice{}, false
		}
		return target, a, true
	}
}

// defaultURLSetting names the settings of the default endpoint.
const defaultURLSetting = "OPENAI_BASE_URL (or --base-url)"

// advisers are tried in order; the first that knows an error in the
// chain advises on it.
var advisers = []adviser{
	// The store (toolmem).
	on(func(e *heldError) (advice, bool) {
		return advice{do: e.advice(), code: ExitLocked}, true
	}),
	on(func(e *toolmem.LockedError) (advice, bool) {
		return advice{do: "wait for it to finish or use --store DIR", code: ExitLocked}, true
	}),
	on(func(e *toolmem.DamagedError) (advice, bool) {
		if e.Record != "" {
			return advice{do: "'review doctor' lists every damaged one", code: ExitDamaged}, true
		}
		return advice{do: fmt.Sprintf("move it aside to start afresh (mv %s %s.damaged), and see 'review doctor --store %s' for details", e.Dir, e.Dir, e.Dir), code: ExitDamaged}, true
	}),
	on(func(e *toolmem.ReadOnlyError) (advice, bool) {
		return advice{do: fmt.Sprintf("'review runs', 'replay', 'memory' and 'doctor' can read it, but a review needs a store it can write: make it writable (chmod u+w %s) or choose another with --store DIR", e.Dir)}, true
	}),
	on(func(e *toolmem.AccessError) (advice, bool) {
		return advice{do: "make it readable and writable by you, or choose another with --store DIR"}, true
	}),
	on(func(e *toolmem.NotStoreError) (advice, bool) {
		return advice{do: "choose an empty or new directory with --store DIR"}, true
	}),
	on(func(e *toolmem.DiskFullError) (advice, bool) {
		// Not 'review gc': it rewrites before it frees, and needs room.
		return advice{do: "free space on its file system, or choose another store with --store DIR"}, true
	}),
	on(func(e *toolmem.GitDirError) (advice, bool) {
		if e.NotRepo() {
			return advice{do: "run review in one, or choose a store with --store DIR"}, true
		}
		return advice{do: "run review in a git repository, or choose a store with --store DIR"}, true
	}),
	is(toolmem.ErrNoDir, advice{do: "choose one with --store DIR"}),
	on(func(e *toolmem.NotFoundError) (advice, bool) {
		if e.Kind == toolmem.KindRun {
			return advice{do: "list runs with 'review runs'"}, true
		}
		return advice{do: "list refs with 'review memory list'"}, true
	}),

	// The diff (diffctx).
	on(func(e *diffctx.RepoError) (advice, bool) {
		return advice{do: "run review in a clone of the repository", sep: "; "}, true
	}),
	on(func(e *diffctx.SinceError) (advice, bool) {
		return advice{subject: "--since " + e.Error(), do: "review the whole change without --since"}, true
	}),

	// The plan (review).
	on(func(e *review.WindowError) (advice, bool) {
		return advice{do: fmt.Sprintf("use --context-window %d or more", e.Want), code: ExitUsage}, true
	}),
	on(func(e *review.CapError) (advice, bool) {
		return advice{do: "raise " + result.CapFlag(e.Reason), sep: "; "}, true
	}),

	// The model endpoint (review/llm).
	on(func(e *llm.TimeoutError) (advice, bool) {
		switch e.Phase {
		case llm.PhaseFirstByte:
			return advice{do: "check that the server is up and not overloaded; a local server loading a large model or reading a long prompt may need more: --first-byte-timeout (REVIEW_FIRST_BYTE_TIMEOUT); a server that does not stream, --stream=false"}, true
		case llm.PhaseStall:
			return advice{do: "check the server's load and logs; allow longer pauses with --first-byte-timeout, or read answers whole with --stream=false"}, true
		case llm.PhaseStream:
			return advice{do: "allow more time per request with --timeout (REVIEW_TIMEOUT), or a smaller answer with --answer-reserve"}, true
		}
		return advice{do: "check that the server is up and not overloaded, or allow more time per request with --timeout (REVIEW_TIMEOUT)"}, true
	}),
	on(func(e *llm.AnswerSizeError) (advice, bool) {
		return advice{do: "the model may have repeated itself, or the server ignores max_tokens: run the review again or try another model; if answers this long are expected, raise --answer-reserve (the limit grows with it)"}, true
	}),
	on(func(e *llm.TruncatedError) (advice, bool) {
		return advice{do: "check the server's logs (a proxy's idle timeout cuts long streams), or read answers whole with --stream=false"}, true
	}),
	on(func(e *llm.ConnectError) (advice, bool) {
		setting := cmp.Or(e.Setting, defaultURLSetting)
		if e.NoHost {
			return advice{do: "check " + setting}, true
		}
		return advice{do: "check " + setting + " and that the server is running"}, true
	}),
	on(func(e *llm.URLError) (advice, bool) {
		return advice{do: "set OPENAI_BASE_URL or --base-url to http(s)://host[:port]/v1"}, true
	}),
	on(func(e *llm.APIError) (advice, bool) {
		// Only a 404 depends on how the endpoint was chosen; the other
		// statuses say what to do themselves.
		if e.Status != http.StatusNotFound {
			return advice{}, false
		}
		return advice{do: fmt.Sprintf("check --model and %s (it usually ends in /v1, also for Ollama, vLLM and llama.cpp)", cmp.Or(e.URLSetting, defaultURLSetting))}, true
	}),
	is(llm.ErrNoModel, advice{do: "set --model"}),
	on(func(e *llm.TokenizerError) (advice, bool) {
		// Only --tokenizer server requires the server's count.
		return advice{do: "--tokenizer server needs a llama.cpp server (llama-server) at " + cmp.Or(e.Setting, defaultURLSetting) + "; count with --tokenizer tiktoken", code: ExitUsage}, true
	}),
}

// advise finds the first error in err's chain that an adviser knows.
func advise(err error) (error, advice, bool) {
	for _, a := range advisers {
		if t, adv, ok := a(err); ok {
			return t, adv, true
		}
	}
	return nil, advice{}, false
}

// errorLine is the one line that says err on stderr: its text, with the
// advice for the typed error in it after that error's own words. A
// wrapper's words before it stay; if a wrapper added words after it, the
// advice ends the line.
func errorLine(err error) string {
	msg := err.Error()
	t, a, ok := advise(err)
	if !ok {
		return msg
	}
	if own := t.Error(); a.subject != "" && strings.HasSuffix(msg, own) {
		msg = strings.TrimSuffix(msg, own) + a.subject
	}
	return msg + cmp.Or(a.sep, ": ") + a.do
}
