package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reviewdev/review/toolmem"
)

// Defaults for the zero values of Env.
const (
	DefaultTimeout  = 20 * time.Second
	DefaultMaxBytes = 1 << 20
)

// Env is what the tools read and the limits they run under.
type Env struct {
	// Root is the top level of the repository's work tree (absolute).
	Root string
	// Head is the revision the tools read as "head", normally a commit SHA;
	// "HEAD" when empty.
	Head string
	// Base is the revision read as "base", normally the merge base. When it
	// is empty, revision "base" and get_file_diff answer with an error
	// result.
	Base string
	// Store holds earlier tool outputs for read_tool_output; when nil, that
	// tool answers with an error result.
	Store *toolmem.Store
	// Ignore holds doublestar globs hiding paths from every tool; see
	// ignore.Match for how they match.
	Ignore []string
	// FindCopies has get_file_diff detect copies as well as renames, as
	// the diff context does when it was loaded with copies.
	FindCopies bool
	// Timeout limits each call (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxBytes caps each call's output (DefaultMaxBytes when zero); a cut
	// output says so at its end.
	MaxBytes int
}

// Definition describes a tool to the model, in the shape of an OpenAI
// function definition.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
	// Strict says the schema follows the rules of OpenAI's strict mode, so
	// a provider may enforce it while sampling.
	Strict bool `json:"strict"`
}

// Result is the answer to one call.
type Result struct {
	// Output is the text for the model.
	Output string
	// IsError marks a call the model should fix: bad arguments, a missing
	// file, a line past the end, a refused path.
	IsError bool
	// Paged marks an output that already is a page of a stored output
	// (read_tool_output): the caller must not store it again as a new
	// truncated reference.
	Paged bool
}

// Set is the tools bound to one repository and review. It is safe for
// concurrent use; it caches what it reads of the repository, which does not
// change during a review.
type Set struct {
	env    Env
	tools  []*tool
	byName map[string]*tool
	state  repoState
}

// tool is one tool: its definition and what runs it.
type tool struct {
	def    Definition
	params []param
	// example is a valid arguments object, shown when a call is malformed.
	example string
	run     func(ctx context.Context, args json.RawMessage) (Result, error)
	// paged marks a tool whose results are pages of stored outputs.
	paged bool
}

// New returns the tools for env, with defaults filled in.
func New(env Env) *Set {
	if env.Head == "" {
		env.Head = "HEAD"
	}
	if env.Timeout <= 0 {
		env.Timeout = DefaultTimeout
	}
	if env.MaxBytes <= 0 {
		env.MaxBytes = DefaultMaxBytes
	}
	if env.Root != "" {
		env.Root = filepath.Clean(env.Root)
	}
	env.Ignore = slices.Clone(env.Ignore)
	s := &Set{
		env:    env,
		byName: map[string]*tool{},
		state:  repoState{revs: map[revision]string{}, trees: map[string]*tree{}},
	}
	s.tools = []*tool{
		s.listTool(),
		s.searchTool(),
		s.readTool(),
		s.diffTool(),
		s.depsTool(),
		s.outputTool(),
	}
	for _, t := range s.tools {
		s.byName[t.def.Name] = t
	}
	return s
}

// Definitions returns the tools' definitions, always in the same order.
func (s *Set) Definitions() []Definition {
	defs := make([]Definition, len(s.tools))
	for i, t := range s.tools {
		defs[i] = t.def
	}
	return defs
}

// Names returns the tools' names, in the order of Definitions.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.def.Name
	}
	return names
}

// Call runs the named tool with JSON arguments. It never panics and never
// returns a Go error: whatever goes wrong becomes an error result that tells
// the model what to change.
func (s *Set) Call(ctx context.Context, name, args string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Output: fmt.Sprintf("%s failed on these arguments (internal error: %v); try different arguments or another tool", name, r), IsError: true}
		}
	}()
	t, ok := s.byName[name]
	if !ok {
		return errorResult(fmt.Errorf("unknown tool %q; the tools are: %s", cutLine(name, 100), strings.Join(s.Names(), ", ")))
	}
	defer func() { res.Paged = res.Paged || t.paged }()
	raw, err := t.check(args)
	if err != nil {
		return errorResult(err)
	}
	if s.env.Root == "" || !filepath.IsAbs(s.env.Root) {
		return errorResult(fmt.Errorf("%s is unavailable: the repository root is not set to an absolute path", name))
	}
	ctx, cancel := context.WithTimeout(ctx, s.env.Timeout)
	defer cancel()
	res, err = t.run(ctx, raw)
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("%s timed out after %s; ask for less (a narrower path, glob or pattern)", name, s.env.Timeout)
		case ctx.Err() != nil:
			err = fmt.Errorf("%s was cancelled", name)
		}
		return errorResult(err)
	}
	res.Output = capText(res.Output, s.env.MaxBytes)
	return res
}

func errorResult(err error) Result {
	return Result{Output: "error: " + err.Error(), IsError: true}
}

// check validates raw arguments against the tool's parameters and returns
// them normalized for decoding: nulls dropped, integers sent as strings or
// as integral floats ("10", 10.0) turned into numbers, as some models send
// them so. Each mistake gets a message naming the fix: not an object, an
// unknown name, a required argument missing, a wrong type.
func (t *tool) check(args string) (json.RawMessage, error) {
	args = strings.TrimSpace(args)
	if args == "" || args == "null" {
		args = "{}"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s arguments must be a JSON object, e.g. %s", t.def.Name, t.example)
	}
	// Sorted, so that a call with several mistakes always gets the same
	// message.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		p, ok := t.param(k)
		if !ok {
			return nil, fmt.Errorf("%s has no argument %q; its arguments are %s (e.g. %s)", t.def.Name, k, t.paramNames(false), t.example)
		}
		if string(v) == "null" {
			delete(m, k)
			continue
		}
		norm, err := p.normalize(v)
		if err != nil {
			return nil, fmt.Errorf("%s argument %q %v (e.g. %s)", t.def.Name, k, err, t.example)
		}
		m[k] = norm
	}
	for _, p := range t.params {
		if _, ok := m[p.name]; p.required && !ok {
			return nil, fmt.Errorf("%s needs argument %q; required: %s (e.g. %s)", t.def.Name, p.name, t.paramNames(true), t.example)
		}
	}
	return json.Marshal(m)
}

func (t *tool) param(name string) (param, bool) {
	for _, p := range t.params {
		if p.name == name {
			return p, true
		}
	}
	return param{}, false
}

func (t *tool) paramNames(requiredOnly bool) string {
	var names []string
	for _, p := range t.params {
		if p.required || !requiredOnly {
			names = append(names, p.name)
		}
	}
	return strings.Join(names, ", ")
}

// decode unmarshals checked arguments into a tool's argument struct.
func (t *tool) decode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s arguments are malformed (%v); e.g. %s", t.def.Name, err, t.example)
	}
	return nil
}
