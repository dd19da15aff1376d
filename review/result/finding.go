package result

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
)

// Severity of a finding, from least to most severe.
type Severity string

// Severities in ascending order.
const (
	Info     Severity = "info"
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

var severityRank = map[Severity]int{Info: 1, Low: 2, Medium: 3, High: 4, Critical: 5}

// Rank orders severities; unknown ones rank 0.
func (s Severity) Rank() int { return severityRank[s] }

// ParseSeverity accepts a severity name in any case.
func ParseSeverity(s string) (Severity, error) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	if v.Rank() == 0 {
		return "", fmt.Errorf("unknown severity %q: use info, low, medium, high or critical", s)
	}
	return v, nil
}

// Finding is one problem the model reported.
type Finding struct {
	Path       string   `json:"path"`
	Line       int      `json:"line"` // 0: the finding is about the file, not a line
	EndLine    int      `json:"end_line,omitempty"`
	Severity   Severity `json:"severity"`
	Category   string   `json:"category"`
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Suggestion string   `json:"suggestion,omitempty"`
	// Replacement is the new text of lines Line to EndLine (Line alone
	// when EndLine is 0), whole lines without the final line break, that
	// the fix puts in their place: a change a reader can apply. Empty
	// deletes the lines; nil means the fix is not such a replacement.
	Replacement *string `json:"replacement,omitempty"`
	// Note says how the finding was adjusted against the diff, if it was.
	Note string `json:"note,omitempty"`
	// Evidence is where the model was shown the lines the finding cites
	// (Line to EndLine at head, as it reported them): the diff context or
	// stored tool outputs, by ref.
	Evidence []Evidence `json:"evidence"`
	// Grounded is set when every line the finding cites was shown to the
	// model (for a finding on a file, some of the file was): a finding on
	// code the model never read is a guess.
	Grounded bool `json:"grounded"`
	// Learning is the number of the team's learning the model cited as
	// making this not a problem here (see package learn); 0 for none. Such
	// a finding is withheld, by that learning.
	Learning int `json:"learning,omitempty"`
}

// Evidence is a run of lines of a file, at head, that the model was shown,
// and where.
type Evidence struct {
	// Source is "diff" for the diff context (the static layer or a unit's
	// hunks), else the ref of the stored tool output that held the lines.
	Source string `json:"source"`
	// Tool names the tool whose output it was; empty for the diff.
	Tool string `json:"tool,omitempty"`
	// Unit is the unit whose hunks showed the lines, for a review in
	// units; 0 for the static diff context and for tool outputs.
	Unit      int    `json:"unit,omitempty"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Text is the lines as the model was shown them, numbered. Only the
	// result a run records for its replay holds it; outputs name the
	// source instead.
	Text []string `json:"text,omitempty"`
}

// SourceDiff is the Source of evidence from the diff context.
const SourceDiff = "diff"

// Lines is the evidence's lines as path:start-end.
func (e Evidence) Lines() string {
	if e.EndLine > e.StartLine {
		return fmt.Sprintf("%s:%d-%d", text.QuotePath(e.Path), e.StartLine, e.EndLine)
	}
	return fmt.Sprintf("%s:%d", text.QuotePath(e.Path), e.StartLine)
}

// Cites returns the lines a finding cites: Line to EndLine, or nothing
// for a finding on the whole file.
func (f Finding) Cites() (start, end int) {
	if f.Line <= 0 {
		return 0, 0
	}
	return f.Line, max(f.EndLine, f.Line)
}

// findingJSON is Finding as JSON shows it, without the methods that would
// recurse.
type findingJSON Finding

// MarshalJSON writes f with its path as text.JSONPath writes it: a path
// that is not UTF-8 in the quoted form the model was shown, which JSON can
// carry and the tools take back, rather than with U+FFFD in it.
func (f Finding) MarshalJSON() ([]byte, error) {
	j := findingJSON(f)
	j.Path = text.JSONPath(f.Path)
	j.Evidence = make([]Evidence, len(f.Evidence))
	for i, e := range f.Evidence {
		e.Path = text.JSONPath(e.Path)
		j.Evidence[i] = e
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Finding(j)
	f.Path = text.PathFromJSON(j.Path)
	for i := range f.Evidence {
		f.Evidence[i].Path = text.PathFromJSON(f.Evidence[i].Path)
	}
	return nil
}

// Dropped is a finding left out of the review, with the reason.
type Dropped struct {
	Finding Finding `json:"finding"`
	Reason  string  `json:"reason"`
}

// RuleID is the rule of a finding: its category, which parsing fills in,
// or "general".
func (f Finding) RuleID() string {
	if c := strings.TrimSpace(f.Category); c != "" {
		return c
	}
	return "general"
}

// Location is path:line, path:line-end, or the path for file-level
// findings; a path that would break a line or is not UTF-8 is quoted as
// a Go string (text.QuotePath), as the diff context shows it.
func (f Finding) Location() string {
	p := text.QuotePath(f.Path)
	switch {
	case f.Line == 0:
		return p
	case f.EndLine > f.Line:
		return fmt.Sprintf("%s:%d-%d", p, f.Line, f.EndLine)
	}
	return fmt.Sprintf("%s:%d", p, f.Line)
}

// Fingerprint identifies a finding across runs and commits: a hash of its
// path, category and normalised title, and not of its line, so it survives
// lines being added above it. Normalising drops case, punctuation and line
// references ("line 42", "L42", ":42"), which a model's titles vary in from
// one run to the next.
func (f Finding) Fingerprint() string {
	h := sha256.New()
	for _, s := range []string{f.Path, strings.ToLower(f.RuleID()), normTitle(f.Title)} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// lineRef matches the ways a title refers to a line: "at line 42",
// "lines 40-44", "L42", "b.go:42:7".
var lineRef = lazy.Regexp(`(?i)(\b(at|on|in|near)\s+)?\blines?\s*#?\d+(\s*(-|–|to|and|,)\s*\d+)*|\bl\d+(-l?\d+)?\b|[\w./-]*:\d+(:\d+)?\b`)

// normTitle reduces a title to its words: lower case, line references
// removed, and every run of other characters made one space.
func normTitle(s string) string {
	s = lineRef().ReplaceAllString(strings.ToLower(s), " ")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ")
}

// LiteralSuggestion finds the replacement text in a suggestion written as
// GitHub's suggested change: exactly one fenced block whose info string is
// "suggestion", holding the new text of the finding's lines. It returns
// that text, whatever prose surrounds the block, and whether there was
// such a block. Nothing else in a suggestion says which lines it replaces.
func LiteralSuggestion(s string) (code, prose string, ok bool) {
	lines := strings.Split(s, "\n")
	start, end := -1, -1
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		fence := FenceOf(t)
		if fence == "" {
			continue
		}
		info := strings.TrimSpace(t[len(fence):])
		// The block runs to a closing fence: the same character, at least
		// as long, with no info string.
		j := i + 1
		for ; j < len(lines); j++ {
			c := strings.TrimSpace(lines[j])
			if f := FenceOf(c); f != "" && f[0] == fence[0] && len(f) >= len(fence) && len(c) == len(f) {
				break
			}
		}
		if j == len(lines) {
			return "", "", false // unclosed: the text is not certain
		}
		if info == "suggestion" {
			if start >= 0 {
				return "", "", false // two replacements for the same lines
			}
			start, end = i, j
		}
		i = j
	}
	if start < 0 {
		return "", "", false
	}
	// Content lines lose as many leading spaces as the opening fence
	// was indented by, as CommonMark reads them.
	indent := len(lines[start]) - len(strings.TrimLeft(lines[start], " "))
	body := make([]string, 0, end-start-1)
	for _, l := range lines[start+1 : end] {
		n := min(indent, len(l)-len(strings.TrimLeft(l, " ")))
		body = append(body, l[n:])
	}
	code = strings.Join(body, "\n")
	rest := append(append([]string(nil), lines[:start]...), lines[end+1:]...)
	return code, strings.TrimSpace(strings.Join(rest, "\n")), true
}

// Change is the suggested change of a finding on a line: the text that
// replaces its lines, and the advice that goes with it. A replacement given
// as such comes first; otherwise a suggestion holding one ```suggestion
// block is one. A file-level finding has none: nothing says which lines.
func (f Finding) Change() (code, prose string, ok bool) {
	switch {
	case f.Line <= 0:
		return "", "", false
	case f.Replacement != nil:
		return strings.TrimSuffix(*f.Replacement, "\n"), f.Suggestion, true
	}
	return LiteralSuggestion(f.Suggestion)
}
