package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/reviewdev/review/review/result"
)

// Kind is what a format writes.
type Kind int

const (
	// Result is a review's outcome: summary, findings and usage.
	Result Kind = iota
	// Answer is the outcome of a follow-up turn (review ask).
	Answer
	// DryRun is the first request a review would send (review --dry-run).
	DryRun
)

func (k Kind) String() string {
	switch k {
	case Result:
		return "review"
	case Answer:
		return "answer"
	case DryRun:
		return "dry run"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Format is one output format: the name --format takes, and a writer for
// each kind it writes.
type Format struct {
	// Name is what --format and --output FORMAT=FILE take.
	Name string

	result func(w io.Writer, r *result.Result, version string) error
	answer func(w io.Writer, a *result.Answer) error
	dryRun func(w io.Writer, d *result.DryRun) error
}

// registry holds every format, in the order help text lists them; the
// first format that writes a kind is its default. A name appears once.
var registry = []Format{
	{
		Name:   "markdown",
		result: func(w io.Writer, r *result.Result, _ string) error { return writeMarkdown(w, r) },
		answer: writeAnswer,
		dryRun: writeDryRun,
	},
	{
		Name:   "json",
		result: func(w io.Writer, r *result.Result, _ string) error { return WriteJSON(w, r) },
		answer: func(w io.Writer, a *result.Answer) error { return WriteJSON(w, a) },
		dryRun: func(w io.Writer, d *result.DryRun) error { return WriteJSON(w, d) },
	},
	{Name: "sarif", result: writeSARIF},
	{Name: "github", result: func(w io.Writer, r *result.Result, _ string) error { return writeGitHub(w, r) }},
	{Name: "rdjson", result: func(w io.Writer, r *result.Result, _ string) error { return writeRDJSON(w, r) }},
	{Name: "codequality", result: func(w io.Writer, r *result.Result, _ string) error { return writeCodeQuality(w, r) }},
}

// Writes reports whether the format writes k.
func (f Format) Writes(k Kind) bool {
	switch k {
	case Result:
		return f.result != nil
	case Answer:
		return f.answer != nil
	case DryRun:
		return f.dryRun != nil
	}
	return false
}

// Names lists the formats that write k, the default first.
func Names(k Kind) []string {
	var names []string
	for _, f := range registry {
		if f.Writes(k) {
			names = append(names, f.Name)
		}
	}
	return names
}

// Lookup returns the format called name if it writes k; "" names k's
// default. Callers report a false result with Names(k), the formats that
// would do.
func Lookup(name string, k Kind) (Format, bool) {
	for _, f := range registry {
		if (name == "" || f.Name == name) && f.Writes(k) {
			return f, true
		}
	}
	return Format{}, false
}

// WriteResult writes a review's result. version is the program's version,
// which formats that name their producer (SARIF) record; empty leaves it
// out.
func (f Format) WriteResult(w io.Writer, r *result.Result, version string) error {
	if f.result == nil {
		return f.cannot(Result)
	}
	return f.result(w, r, version)
}

// WriteAnswer writes a follow-up turn's answer.
func (f Format) WriteAnswer(w io.Writer, a *result.Answer) error {
	if f.answer == nil {
		return f.cannot(Answer)
	}
	return f.answer(w, a)
}

// WriteDryRun writes what a review's first request would carry.
func (f Format) WriteDryRun(w io.Writer, d *result.DryRun) error {
	if f.dryRun == nil {
		return f.cannot(DryRun)
	}
	return f.dryRun(w, d)
}

// cannot is the error of a writer asked for a kind it does not write, which
// Lookup keeps from happening: no format falls back to another.
func (f Format) cannot(k Kind) error {
	return fmt.Errorf("the %s format does not write a %s", f.Name, k)
}

// WriteJSON writes v as indented JSON with a trailing newline, leaving <, >
// and & as they are, since people read it too: the json format, and what
// commands print for --json. It is safe to print (safeJSON).
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(safeJSON(b.Bytes()))
	return err
}

// safeJSON makes JSON from encoding/json safe to print to a terminal or a
// GitHub Actions log without changing the values it holds. The encoder
// already escapes the C0 controls (ESC included) and line breaks; this
// escapes what it leaves raw: DEL and the C1 controls, which terminals act
// on (U+009B is CSI), the "##[" the Actions runner reads as a command
// anywhere in a line, and invalid UTF-8 in embedded raw JSON, as U+FFFD.
// None of these can occur outside a string, where an escape means the same
// character.
func safeJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("##[")) && bytes.IndexFunc(b, func(r rune) bool { return r >= 0x7f }) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '#' && i+2 < len(b) && b[i+1] == '#' && b[i+2] == '[':
			out = append(out, `##\u005b`...)
			i += 3
		case c < 0x7f:
			out = append(out, c)
			i++
		case c == 0x7f:
			out = append(out, `\u007f`...)
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				out = append(out, `\ufffd`...)
			case r <= 0x9f:
				out = fmt.Appendf(out, `\u%04x`, r)
			default:
				out = append(out, b[i:i+n]...)
			}
			i += n
		}
	}
	return out
}
