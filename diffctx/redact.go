package diffctx

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reviewdev/review/internal/redact"
)

// Leak is a secret on lines the change adds.
type Leak struct {
	Path string `json:"path"`
	// Line and EndLine are the first and last added lines holding it, in
	// the new version of the file; EndLine is 0 for a secret on one line.
	Line    int `json:"line"`
	EndLine int `json:"end_line,omitempty"`
	// Rule names what was found, Description says what the rule looks
	// for, and Placeholder is what the model sees instead.
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Placeholder string `json:"placeholder"`
	// Confidence is the rule's (redact.High for a token of a known
	// format), and Setting says whether the secret sits in
	// documentation, a test fixture or minified code (see
	// redact.Setting).
	Confidence redact.Confidence `json:"confidence"`
	Setting    string            `json:"setting,omitempty"`
}

// Redact replaces the secrets in the hunks of d, on context, deleted and
// added lines alike and in the hunk headers' section text, with r's
// placeholders, and returns the secrets on added lines: those the change
// adds. Each file's lines are scanned together, without their diff
// markers, so a secret over several lines (a private key) is found as in
// the file; the hunks keep their lines and line numbers. A nil r changes
// nothing.
func (d *Diff) Redact(r *redact.Redactor) []Leak {
	if r == nil {
		return nil
	}
	// Files are scanned on every core: on a large change the scan is a
	// good part of the start.
	found := make([][]Leak, len(d.Files))
	workers := min(runtime.GOMAXPROCS(0), len(d.Files)/parallelFiles+1)
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(d.Files) {
					return
				}
				found[i] = d.Files[i].redact(r)
			}
		})
	}
	wg.Wait()
	var leaks []Leak
	for _, l := range found {
		leaks = append(leaks, l...)
	}
	return append(leaks, d.RedactPaths(r)...)
}

// RedactPaths replaces the secrets in the paths of d's files, old and new,
// and in git's warnings, with r's placeholders, and returns a leak for
// each secret a path the change adds holds (at line 0: the file). Every
// path shown from then on, in the diff context, findings, units and run
// records, is the placeholder path; the tools resolve it back inside the
// process (tools.Env.Redact). Hunks are scanned with their files' real
// paths first (Redact). A nil r changes nothing.
func (d *Diff) RedactPaths(r *redact.Redactor) []Leak {
	if r == nil {
		return nil
	}
	var leaks []Leak
	for k, files := range [][]*File{d.Files, d.Earlier} {
		changed := k == 0 // Earlier's files are context
		for _, f := range files {
			path, ms := r.RedactPath(f.Path)
			old, _ := r.RedactPath(f.OldPath)
			if path == f.Path && old == f.OldPath {
				continue
			}
			for _, m := range ms {
				if changed && !m.Guard && !strings.Contains(old, m.Placeholder) && f.Status != Deleted {
					leaks = append(leaks, Leak{Path: path, Rule: m.Rule, Description: m.Description,
						Placeholder: m.Placeholder, Confidence: m.Confidence, Setting: m.Setting})
				}
			}
			f.Path, f.OldPath = path, old
		}
	}
	for i, w := range d.Warnings {
		d.Warnings[i], _ = r.Redact(w)
	}
	d.byPath = nil // indexed by the paths as they were
	return leaks
}

// parallelFiles is how many files make another worker worth starting.
const parallelFiles = 16

func (f *File) redact(r *redact.Redactor) []Leak {
	// The text of every line of every hunk, and for each its marker and
	// new-side number.
	type ref struct {
		op      byte
		newLine int
	}
	// Sized up front: a file of a large change holds megabytes, and
	// growing to them copied each several times.
	size, n := 0, 0
	for i := range f.Hunks {
		size += len(f.Hunks[i].Body)
		n += strings.Count(f.Hunks[i].Body, "\n") + 1
	}
	var b strings.Builder
	b.Grow(size)
	refs := make([]ref, 0, n)
	for i := range f.Hunks {
		h := &f.Hunks[i]
		h.Section, _ = r.RedactFile(f.Path, h.Section)
		h.walk(func(op byte, text string, newLine int) bool {
			if op != '\\' {
				b.WriteString(text)
				b.WriteByte('\n')
				refs = append(refs, ref{op, newLine})
			}
			return true
		})
	}
	text, ms := r.RedactFile(f.Path, b.String())
	if len(ms) == 0 {
		return nil
	}
	lines := strings.Split(text, "\n") // one per ref, as redaction keeps lines
	next := 0
	for i := range f.Hunks {
		h := &f.Hunks[i]
		var nb strings.Builder
		nb.Grow(len(h.Body))
		for _, line := range strings.SplitAfter(h.Body, "\n") {
			if line == "" {
				continue
			}
			if line[0] == '\\' {
				nb.WriteString(line)
				continue
			}
			nb.WriteByte(line[0])
			nb.WriteString(lines[next])
			if strings.HasSuffix(line, "\n") {
				nb.WriteByte('\n')
			}
			next++
		}
		h.Body = nb.String()
	}
	var leaks []Leak
	for _, m := range ms {
		if m.Guard {
			continue
		}
		first, last := 0, 0
		for _, rf := range refs[m.Line-1 : m.EndLine] {
			if rf.op == '+' {
				if first == 0 {
					first = rf.newLine
				}
				last = rf.newLine
			}
		}
		if first == 0 {
			continue
		}
		l := Leak{Path: f.Path, Line: first, Rule: m.Rule, Description: m.Description, Placeholder: m.Placeholder,
			Confidence: m.Confidence, Setting: m.Setting}
		if last > first {
			l.EndLine = last
		}
		leaks = append(leaks, l)
	}
	return leaks
}
