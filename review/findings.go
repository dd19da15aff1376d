package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/tools"
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
var lineRef = regexp.MustCompile(`(?i)(\b(at|on|in|near)\s+)?\blines?\s*#?\d+(\s*(-|–|to|and|,)\s*\d+)*|\bl\d+(-l?\d+)?\b|[\w./-]*:\d+(:\d+)?\b`)

// normTitle reduces a title to its words: lower case, line references
// removed, and every run of other characters made one space.
func normTitle(s string) string {
	s = lineRef.ReplaceAllString(strings.ToLower(s), " ")
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

// submission is the argument of submit_review.
type submission struct {
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
}

// submitTool is submit_review, the tool that ends a review: it checks the
// submission and hands it to done. It is offered with the repository tools
// and called like them; its result, an acknowledgement, is not stored.
type submitTool struct{ done func(submission) }

// findingSchema is the schema of one finding. It is strict: the model must
// give every field, with null for the optional ones.
var findingSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "line": {"type": "integer", "description": "In the new version, as numbered in the diff context."},
    "end_line": {"type": ["integer", "null"], "description": "Last line, or null."},
    "severity": {"type": "string", "enum": ["info", "low", "medium", "high", "critical"]},
    "category": {"type": "string", "description": "One word: correctness, security, concurrency, error-handling, performance, tests."},
    "title": {"type": "string", "description": "The problem, in one line."},
    "body": {"type": "string", "description": "What goes wrong, when, why."},
    "suggestion": {"type": ["string", "null"], "description": "The fix, or null."},
    "replacement": {"type": ["string", "null"], "description": "New text of line..end_line for a literal fix, else null."}
  },
  "required": ["path", "line", "end_line", "severity", "category", "title", "body", "suggestion", "replacement"],
  "additionalProperties": false
}`)

func (submitTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        toolname.SubmitReview,
		Description: "End the review with a short summary and verdict and every finding (none if the change is fine), once, last.",
		Params: []tools.Param{
			// Not null in the schema, yet a call without them is taken as
			// an empty summary or no findings: models that do not follow
			// the schema still get their review through.
			tools.String("summary", "What the change does, and your verdict.").NotNull().
				Example("Adds a retry loop to the client; it never stops on a permanent error."),
			tools.Array("findings", "", findingSchema).NotNull().
				Example(json.RawMessage(`[{"path": "client.go", "line": 42, "end_line": null, "severity": "high", "category": "correctness", "title": "Retry loop never ends", "body": "...", "suggestion": null, "replacement": null}]`)),
		},
		Unstored: true,
	}
}

func (t submitTool) Run(_ context.Context, args tools.Args) (tools.Result, error) {
	sub, err := parseSubmission(args)
	if err != nil {
		return tools.Result{}, err
	}
	if t.done != nil {
		t.done(sub)
	}
	return tools.Result{Output: fmt.Sprintf("Review received: %d findings.", len(sub.Findings))}, nil
}

// offered returns the tools a loop offers: the repository's, then
// submit_review, which hands a submission it accepts to done.
func offered(set *tools.Set, done func(submission)) *tools.Set {
	return set.With(submitTool{done})
}

// parseSubmission decodes submit_review's arguments, tolerating the nulls
// strict mode asks for and the small slips models make (a severity in
// capitals, a missing category). It returns an error the model can act on
// when the arguments cannot be used at all, worded like every tool's.
func parseSubmission(args tools.Args) (submission, error) {
	var raw struct {
		Summary  string `json:"summary"`
		Findings []struct {
			Path        string  `json:"path"`
			Line        *int    `json:"line"`
			EndLine     *int    `json:"end_line"`
			Severity    string  `json:"severity"`
			Category    string  `json:"category"`
			Title       string  `json:"title"`
			Body        string  `json:"body"`
			Suggestion  *string `json:"suggestion"`
			Replacement *string `json:"replacement"`
		} `json:"findings"`
	}
	if err := args.Decode(&raw); err != nil {
		return submission{}, err
	}
	s := submission{Summary: strings.TrimSpace(raw.Summary), Findings: []Finding{}}
	for i, f := range raw.Findings {
		sev, err := ParseSeverity(f.Severity)
		if err != nil {
			return submission{}, args.Errorf(fmt.Sprintf("findings[%d].severity", i), "must be info, low, medium, high or critical, not %q", f.Severity)
		}
		// The quoted form the diff context shows a path with a newline in.
		path := text.UnquotePath(strings.TrimPrefix(strings.TrimSpace(f.Path), "./"))
		if path == "" {
			return submission{}, args.Errorf(fmt.Sprintf("findings[%d].path", i), "is missing; give the repository-relative path of the file")
		}
		n := Finding{
			Path: path, Severity: sev,
			Category: strings.ToLower(strings.TrimSpace(f.Category)),
			Title:    strings.TrimSpace(f.Title), Body: strings.TrimSpace(f.Body),
		}
		if n.Category == "" {
			n.Category = "general"
		}
		if n.Title == "" {
			n.Title = titleOf(n.Body)
		}
		if f.Line != nil && *f.Line > 0 {
			n.Line = *f.Line
		}
		if f.EndLine != nil && *f.EndLine > n.Line && n.Line > 0 {
			n.EndLine = *f.EndLine
		}
		if f.Suggestion != nil {
			n.Suggestion = strings.TrimSpace(*f.Suggestion)
		}
		if f.Replacement != nil && n.Line > 0 {
			// Whitespace is the replacement's own: only the final line
			// break, which the lines it replaces keep, goes.
			r := strings.TrimSuffix(strings.ReplaceAll(*f.Replacement, "\r\n", "\n"), "\n")
			n.Replacement = &r
		}
		s.Findings = append(s.Findings, n)
	}
	return s, nil
}

// OffDiff says what happens to a finding on a line the change did not touch.
type OffDiff string

// OffDiff policies.
const (
	// KeepFileLevel keeps the finding on its file, without a line.
	KeepFileLevel OffDiff = "file"
	// DropOffDiff drops it, recording why.
	DropOffDiff OffDiff = "drop"
)

// checkFindings holds findings against the diff: a finding must be on a file
// the change touched, and on a line of one of its hunks; a finding elsewhere
// in a changed file is kept at file level or dropped, as policy says.
// Duplicates (same file, line and title or category) are merged, keeping the
// higher severity. The result is sorted by severity, then path and line.
func checkFindings(d *diffctx.Diff, fs []Finding, policy OffDiff) ([]Finding, []Dropped) {
	// Merge duplicates first, on the lines the model gave: two findings on
	// different lines are different even if both end up at file level.
	fs, dropped := dedupe(fs)
	var kept []Finding
	for _, f := range fs {
		file := d.File(f.Path)
		switch {
		case file == nil && earlier(d, f.Path):
			dropped = append(dropped, Dropped{f, fmt.Sprintf("%s changed only before %.12s, which an earlier review covered", f.Path, d.SinceSHA)})
			continue
		case file == nil:
			dropped = append(dropped, Dropped{f, "the change does not touch " + f.Path})
			continue
		case f.Line > 0 && !d.InHunk(f.Path, f.Line):
			if policy == DropOffDiff {
				dropped = append(dropped, Dropped{f, fmt.Sprintf("line %d of %s is outside the changed hunks", f.Line, f.Path)})
				continue
			}
			f.Note = fmt.Sprintf("reported at line %d, outside the changed hunks; kept for the file", f.Line)
			f.Line, f.EndLine = 0, 0
			f.Replacement = nil // no lines left for it to replace
		}
		kept = append(kept, f)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return kept, dropped
}

// earlier reports whether path is a file the change touched only before
// its --since commit.
func earlier(d *diffctx.Diff, path string) bool {
	for _, f := range d.Earlier {
		if f.Path == path {
			return true
		}
	}
	return false
}

// dedupe merges findings on the same file and line that share a title or a
// category, keeping the more severe and joining distinct bodies.
func dedupe(fs []Finding) ([]Finding, []Dropped) {
	var out []Finding
	var dropped []Dropped
	for _, f := range fs {
		dup := -1
		for i, o := range out {
			if o.Path == f.Path && o.Line == f.Line &&
				(strings.EqualFold(o.Title, f.Title) || o.Category == f.Category) {
				dup = i
				break
			}
		}
		if dup < 0 {
			out = append(out, f)
			continue
		}
		// The more severe finding stands; the other one's text joins it.
		kept, gone := out[dup], f
		if f.Severity.Rank() > kept.Severity.Rank() {
			kept, gone = f, kept
		}
		if gone.Body != kept.Body && !strings.Contains(kept.Body, gone.Body) {
			kept.Body += "\n\n" + gone.Body
		}
		if kept.Suggestion == "" {
			kept.Suggestion = gone.Suggestion
		}
		out[dup] = kept
		dropped = append(dropped, Dropped{gone, fmt.Sprintf("merged into %q at %s:%d", kept.Title, kept.Path, kept.Line)})
	}
	return out, dropped
}

// titleOf makes a title of a body: its first line, at most 100 runes.
func titleOf(body string) string {
	if r := []rune(text.FirstLine(body)); len(r) > 100 {
		return string(r[:100])
	}
	return text.FirstLine(body)
}
