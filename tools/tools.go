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

	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools/symbols"
)

// Defaults for the zero values of Env.
const (
	DefaultTimeout  = 20 * time.Second
	DefaultMaxBytes = 64 << 20
)

// Env is what the tools read and the limits they run under.
type Env struct {
	// Redact, if set, replaces secrets in every output before it is
	// stored or shown: tool memory, run records and the model see only
	// placeholders.
	Redact *redact.Redactor
	// PageChars bounds the characters of one page or grep of a stored
	// output (read_tool_output), so a page fits the window it is read in;
	// 0 is the store's own bound.
	PageChars int
	// Root is the top level of the repository's work tree (absolute).
	Root string
	// Head is the revision the tools read as "head", normally a commit SHA;
	// "HEAD" when empty.
	Head string
	// Base is the revision read as "base", normally the merge base. When it
	// is empty, revision "base" and get_file_diff answer with an error
	// result.
	Base string
	// Store is tool memory: Answer stores outputs in it, read_tool_output
	// reads them back. When nil, outputs are not stored and
	// read_tool_output answers with an error result.
	Store *toolmem.Store
	// Ignore holds doublestar globs hiding paths from every tool; see
	// Ignored for how they match.
	Ignore []string
	// FindCopies has get_file_diff detect copies as well as renames, as
	// the diff context does when it was loaded with copies.
	FindCopies bool
	// Timeout limits each call (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxBytes caps each call's output (DefaultMaxBytes when zero); a cut
	// output says so at its end.
	MaxBytes int
	// Resolved says Head and Base are full names of commits already
	// verified, as diffctx.Load returns them: the tools take them as they
	// are instead of asking git again.
	Resolved bool
	// NoNavigation leaves find_definition and find_references out of the
	// set.
	NoNavigation bool
	// Symbols, when set, is the head's symbol index another set of the
	// run already read (the plan's, for the overview), used instead of
	// reading it again.
	Symbols *symbols.Index
	// Patches, when set, holds the diff context's own patch of changed
	// files by path, as git printed it from Base to Head with the
	// arguments get_file_diff runs (git.PatchArgs): the tool answers a
	// modified, added, deleted or renamed file from it instead of running
	// git again. A copy or a change of type is asked of git, whose diff of
	// its paths is not one section of the whole.
	Patches map[string][]byte
	// Checkout, when set, is the commit the work tree at Root holds (its
	// HEAD) as the caller found it, which spares asking git whether files
	// may be read from the work tree; empty means ask.
	Checkout string
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
}

// Tool is one tool a model may call.
type Tool interface {
	// Spec is what the model is told about the tool and how its calls are
	// checked. It must not change.
	Spec() Spec
	// Run runs a call whose arguments passed the checks of the spec's
	// parameters. A returned error becomes an error result: it is for
	// mistakes the model can fix, worded for it.
	Run(ctx context.Context, args Args) (Result, error)
}

// Spec describes a tool.
type Spec struct {
	Name        string
	Description string
	Params      []Param
	// Preview is what the tool's output holds, so that its preview can
	// summarise it (matches per file, files per directory) rather than
	// show an arbitrary head and tail.
	Preview toolmem.Kind
	// Unstored marks a tool whose results are never kept in tool memory:
	// a page of a stored output (read_tool_output) would be stored again,
	// and an acknowledgement (submit_review) is not worth a ref.
	Unstored bool
}

// define returns a tool made of its spec and the function that runs it.
func define(spec Spec, run func(ctx context.Context, args Args) (Result, error)) Tool {
	return funcTool{spec, run}
}

type funcTool struct {
	spec Spec
	run  func(context.Context, Args) (Result, error)
}

func (t funcTool) Spec() Spec                                      { return t.spec }
func (t funcTool) Run(ctx context.Context, a Args) (Result, error) { return t.run(ctx, a) }

// Set is the tools bound to one repository and review. It is safe for
// concurrent use once its tools are registered; it caches what it reads of
// the repository, which does not change during a review.
type Set struct {
	env    Env
	tools  []*tool
	byName map[string]*tool
	state  *repoState
}

// tool is a registered tool, with what its spec derives.
type tool struct {
	Tool
	spec   Spec
	def    Definition
	params map[string]Param
	// example is a valid arguments object, shown when a call is malformed.
	example string
}

// defaultTimeout is the Timeout of an Env that sets none: DefaultTimeout,
// which the package's tests raise, since a busy machine may slow a call
// past it without anything being wrong.
var defaultTimeout = DefaultTimeout

// New returns the repository tools for env, with defaults filled in.
func New(env Env) *Set {
	if env.Head == "" {
		env.Head = "HEAD"
	}
	if env.Timeout <= 0 {
		env.Timeout = defaultTimeout
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
		state: &repoState{
			revs:  map[revision]string{},
			trees: map[string]*tree{},
			names: map[string]*tree{},
			lazy:  map[string]*tree{},
			cat:   &catFile{dir: env.Root},
		},
	}
	if env.Symbols != nil {
		ready := make(chan struct{})
		close(ready)
		s.state.symbols = &symbolState{ready: ready, index: env.Symbols}
	}
	if env.Resolved && env.Head != "" {
		s.state.revs[revHead] = env.Head
		if env.Base != "" {
			s.state.revs[revBase] = env.Base
		}
	}
	for _, t := range []Tool{
		s.listTool(),
		s.searchTool(),
		s.readTool(),
		s.diffTool(),
		s.depsTool(),
		s.definitionTool(),
		s.referencesTool(),
		s.outputTool(),
	} {
		if env.NoNavigation && (t.Spec().Name == toolname.FindDefinition || t.Spec().Name == toolname.FindReferences) {
			continue
		}
		s.Register(t)
	}
	return s
}

// Register adds a tool, offered after those already in the set. A tool
// whose name is taken or empty, or whose parameters repeat a name, is a
// programming error: Register panics.
func (s *Set) Register(t Tool) {
	spec := t.Spec()
	if spec.Name == "" {
		panic("tools: registering a tool without a name")
	}
	if _, dup := s.byName[spec.Name]; dup {
		panic(fmt.Sprintf("tools: tool %q registered twice", spec.Name))
	}
	r := &tool{
		Tool: t,
		spec: spec,
		def: Definition{
			Name:        spec.Name,
			Description: spec.Description,
			Parameters:  strictSchema(spec.Params),
			Strict:      true,
		},
		params:  map[string]Param{},
		example: example(spec.Params),
	}
	for _, p := range spec.Params {
		if _, dup := r.params[p.name]; dup {
			panic(fmt.Sprintf("tools: tool %q has two parameters %q", spec.Name, p.name))
		}
		r.params[p.name] = p
	}
	s.tools = append(s.tools, r)
	s.byName[spec.Name] = r
}

// With returns a set that offers the tools of s and then extra, sharing
// what s knows of the repository. s is unchanged: a tool loop adds the
// tools of its own (submit_review) without touching the set others use.
func (s *Set) With(extra ...Tool) *Set {
	w := &Set{env: s.env, tools: slices.Clone(s.tools), byName: maps.Clone(s.byName), state: s.state}
	for _, t := range extra {
		w.Register(t)
	}
	return w
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
// the model what to change. It stores nothing; Answer does.
func (s *Set) Call(ctx context.Context, name, args string) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Output: fmt.Sprintf("%s failed on these arguments (internal error: %v); try different arguments or another tool", name, r), IsError: true}
		}
	}()
	t, ok := s.byName[name]
	if !ok {
		return errorResult(s.unknown(name))
	}
	a, err := t.check(args)
	if err != nil {
		return errorResult(err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.env.Timeout)
	defer cancel()
	res, err = t.Run(ctx, a)
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

// Check checks arguments for the named tool as Call does, without running
// it. Mistakes in the arguments are *ArgError.
func (s *Set) Check(name, args string) error {
	t, ok := s.byName[name]
	if !ok {
		return s.unknown(name)
	}
	_, err := t.check(args)
	return err
}

func (s *Set) unknown(name string) error {
	what := fmt.Sprintf("unknown tool %q", cutLine(name, 100))
	if name == toolname.Unnamed {
		what = "the call names no tool"
	}
	return fmt.Errorf("%s; the tools are: %s", what, strings.Join(s.Names(), ", "))
}

func errorResult(err error) Result {
	return Result{Output: "error: " + err.Error(), IsError: true}
}

// Args are the arguments of a call, checked against the tool's parameters.
type Args struct {
	t     *tool
	raw   json.RawMessage
	given map[string]bool
	notes []string
}

// Decode unmarshals the arguments into a tool's argument struct: nulls
// dropped, defaults filled in, integers as numbers, values above a
// parameter's maximum lowered to it.
func (a Args) Decode(v any) error {
	if err := json.Unmarshal(a.raw, v); err != nil {
		return &ArgError{Tool: a.t.def.Name, Problem: fmt.Sprintf("are malformed (%v)", err), Example: a.t.example}
	}
	return nil
}

// Given reports whether the call sent the argument, not null.
func (a Args) Given(name string) bool { return a.given[name] }

// Notes say what the checks changed ("limit 5000 lowered to the maximum,
// 1000"), for the tool to show in its result.
func (a Args) Notes() []string { return a.notes }

// Errorf returns an error about one argument of the call, worded as every
// argument error is (see ArgError). arg may name an element:
// "findings[0].path".
func (a Args) Errorf(arg, format string, v ...any) error {
	return &ArgError{Tool: a.t.def.Name, Arg: arg, Problem: fmt.Sprintf(format, v...), Example: a.t.example}
}

// check validates raw arguments against the tool's parameters. Each mistake
// gets a message naming the fix: not an object, an unknown name, a
// required argument missing, a wrong type, a value below the minimum.
func (t *tool) check(args string) (Args, error) {
	a := Args{t: t, given: map[string]bool{}}
	args = strings.TrimSpace(args)
	if args == "" || args == "null" {
		args = "{}"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		return a, &ArgError{Tool: t.def.Name, Problem: "must be a JSON object", Example: t.example}
	}
	// Sorted, so that a call with several mistakes always gets the same
	// message.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		p, ok := t.params[k]
		if !ok {
			return a, a.Errorf(k, "is unknown; the arguments are %s", t.paramNames(false))
		}
		if string(v) == "null" {
			delete(m, k)
			continue
		}
		norm, note, err := p.normalize(v)
		if err != nil {
			return a, a.Errorf(k, "%v", err)
		}
		if note != "" {
			a.notes = append(a.notes, note)
		}
		m[k] = norm
		a.given[k] = true
	}
	for _, p := range t.spec.Params {
		if _, ok := m[p.name]; ok {
			continue
		}
		if p.required {
			return a, a.Errorf(p.name, "is missing; required: %s", t.paramNames(true))
		}
		if p.def != nil {
			m[p.name] = json.RawMessage(jsonValue(p.def))
		}
	}
	raw, err := json.Marshal(m)
	a.raw = raw
	return a, err
}

func (t *tool) paramNames(requiredOnly bool) string {
	var names []string
	for _, p := range t.spec.Params {
		if p.required || !requiredOnly {
			names = append(names, p.name)
		}
	}
	return strings.Join(names, ", ")
}
