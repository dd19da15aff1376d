package diffctx

import (
	"strings"

	"github.com/reviewdev/review/internal/injection"
)

// commentLeaders are what a continued comment line starts with, taken
// off before it is read after the line before it.
const commentLeaders = " \t/#*;-<!>%"

// Injection is text the change adds that speaks to the reviewer instead of
// describing code: a prompt-injection attempt (see package injection).
type Injection struct {
	Path string `json:"path"`
	// Line is the added line that holds it, in the new version of the
	// file; 0 for text in the path the change adds.
	Line int            `json:"line"`
	Rule injection.Rule `json:"rule"`
	// Text is the phrase found, lower-cased and safe to quote.
	Text string `json:"text"`
	// More counts the file's further lines that hold such text, which
	// are not listed each.
	More int `json:"more,omitempty"`
	// Test says the file is a test or a test fixture, where such text is
	// often what a test feeds a filter like this one.
	Test bool `json:"test,omitempty"`
}

// maxInjectionsPerFile bounds the lines of one file listed each: a file
// that collects such text (a test corpus, a dataset) is named once with
// a count, not line by line.
const maxInjectionsPerFile = 3

// Injections finds the text the change adds that speaks to the reviewer:
// on every added line of d's files, and in the paths of the files it adds
// or renames. A phrase between quotes in documentation (which mentions
// such text to explain it) is left out; in a file that instructs agents
// (TagSteering), text addressed to them is expected, and only the other
// rules apply.
func (d *Diff) Injections() []Injection {
	var out []Injection
	for _, f := range d.Files {
		o := injection.Options{Steering: f.HasTag(TagSteering)}
		docs, test := f.HasTag(TagDocs), f.HasTag(TagTest)
		var found []Injection
		add := func(line int, m injection.Match) {
			if m.Quoted && docs {
				return
			}
			if len(found) == maxInjectionsPerFile {
				found[len(found)-1].More++
				return
			}
			found = append(found, Injection{Path: f.Path, Line: line, Rule: m.Rule, Text: m.Text, Test: test})
		}
		if f.Status == Added || f.Status == Renamed || f.Status == Copied {
			if m, ok := injection.FindPath(f.Path, o); ok {
				add(0, m)
			}
		}
		for i := range f.Hunks {
			// A phrase may run over two added lines ("Ignore all
			// previous / instructions"): a line found nothing alone is
			// read again after the one before it, and the phrase is
			// reported where it starts.
			prev, prevLine := "", 0
			f.Hunks[i].walk(func(op byte, text string, newLine int) bool {
				if op != '+' {
					prev = ""
					return true
				}
				if m, ok := injection.Find(text, o); ok {
					add(newLine, m)
					prev = ""
					return true
				}
				if prev != "" {
					if m, ok := injection.Find(prev+" "+strings.TrimLeft(text, commentLeaders), o); ok {
						add(prevLine, m)
						prev = ""
						return true
					}
				}
				prev, prevLine = text, newLine
				return true
			})
		}
		out = append(out, found...)
	}
	return out
}
