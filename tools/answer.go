package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/toolmem"
)

// Call is one call of a tool, by a model or from the shell, with where its
// output is recorded.
type Call struct {
	// Run and Step are the run and the step (the model reply) the call
	// belongs to; ID is the call's ID in that reply.
	Run  string
	Step int
	ID   string
	Name string
	Args string
}

// Answer is a call's result as the conversation carries it.
type Answer struct {
	// Result is the whole result, as stored.
	Result
	// Ref is where the output is stored in tool memory; empty when it was
	// not stored.
	Ref string
	// Content is what the conversation carries: the output itself when it
	// was not stored, else its preview, which names the ref.
	Content string
}

// Answer runs a call, stores its whole output in tool memory and returns
// the preview the conversation carries instead. It is the one path from a
// call to what the model reads, for the agent and for review tool alike.
//
// Results of Unstored tools, and every result when the set has no store,
// are carried whole. An empty output reads "(no output)", so that the model
// never gets an empty message. The error is for the caller stopping: ctx
// cancelled, or the store failing; what the model got wrong is an error
// result.
func (s *Set) Answer(ctx context.Context, c Call, lim toolmem.Limits) (Answer, error) {
	res := s.Call(ctx, c.Name, c.Args)
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	if strings.TrimSpace(res.Output) == "" {
		res.Output = "(no output)"
	}
	// Before anything keeps or shows the output: the store on disk and
	// the run records then hold placeholders only.
	res.Output, _ = s.env.Redact.Redact(res.Output)
	a := Answer{Result: res, Content: res.Output}
	t, ok := s.byName[c.Name]
	if (ok && t.spec.Unstored) || s.env.Store == nil {
		return a, nil
	}
	kind := toolmem.Text
	if ok && !res.IsError {
		kind = t.spec.Preview
	}
	// The arguments too: the model names a file by its placeholder, but a
	// call from the shell (review tool) may name it by its path.
	args, _ := s.env.Redact.RedactJSON(c.Args)
	ref, err := s.env.Store.Put(c.Run, c.Step, c.ID, c.Name, args, []byte(res.Output))
	if err != nil {
		return Answer{}, fmt.Errorf("storing the output of %s: %w", c.Name, err)
	}
	a.Ref = ref
	a.Content = toolmem.PreviewKind(kind, ref, []byte(res.Output), lim)
	return a, nil
}
