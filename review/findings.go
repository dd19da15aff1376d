package review

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
)

// submission is the argument of submit_review.
type submission struct {
	Summary  string           `json:"summary"`
	Findings []result.Finding `json:"findings"`
}

// submitTool is submit_review, the tool that ends a review: it checks the
// submission and hands it to done. It is offered with the repository tools
// and called like them; its result, an acknowledgement, is not stored.
// With the team's learnings in the static layer, a finding may cite one
// that makes it no problem here (learnings), to be withheld by it.
type submitTool struct {
	done      func(submission)
	learnings []learn.Learning
}

// learningSchema is the field of a finding that cites a team learning,
// offered only when learnings are in force: requests without them stay as
// they were.
const learningSchema = `"learning": {"type": ["integer", "null"], "description": "Number of the team learning that makes this no problem here (it is withheld by it), else null."}`

// findingSchema is the schema of one finding, with the learning field
// when learned: it is strict, the model must give every field, with null
// for the optional ones.
func findingSchema(learned bool) json.RawMessage {
	if !learned {
		return plainFindingSchema
	}
	s := strings.Replace(string(plainFindingSchema), `
  },
  "required": [`, ",\n    "+learningSchema+`
  },
  "required": [`, 1)
	s = strings.Replace(s, `"replacement"],`, `"replacement", "learning"],`, 1)
	return json.RawMessage(s)
}

var plainFindingSchema = json.RawMessage(`{
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

func (t submitTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        toolname.SubmitReview,
		Description: "End the review with a short summary and verdict and every finding (none if the change is fine), once, last.",
		Params: []tools.Param{
			// Not null in the schema, yet a call without them is taken as
			// an empty summary or no findings: models that do not follow
			// the schema still get their review through.
			tools.String("summary", "What the change does, and your verdict.").NotNull().
				Example("Adds a retry loop to the client; it never stops on a permanent error."),
			tools.Array("findings", "", findingSchema(len(t.learnings) > 0)).NotNull().
				Example(json.RawMessage(`[{"path": "client.go", "line": 42, "end_line": null, "severity": "high", "category": "correctness", "title": "Retry loop never ends", "body": "...", "suggestion": null, "replacement": null}]`)),
		},
		Unstored: true,
	}
}

func (t submitTool) Run(_ context.Context, args tools.Args) (tools.Result, error) {
	sub, err := parseSubmission(args, t.learnings)
	if err != nil {
		return tools.Result{}, err
	}
	if t.done != nil {
		t.done(sub)
	}
	return tools.Result{Output: fmt.Sprintf("Review received: %d findings.", len(sub.Findings))}, nil
}

// numbers lists the learnings' numbers for a message: " (1, 2, 3)".
func numbers(ls []learn.Learning) string {
	if len(ls) == 0 {
		return " (none is)"
	}
	ns := make([]string, len(ls))
	for i, l := range ls {
		ns[i] = strconv.Itoa(l.N)
	}
	return " (" + strings.Join(ns, ", ") + ")"
}

// offered returns the tools a loop offers: the repository's, then
// submit_review, which hands a submission it accepts to done.
func offered(set *tools.Set, learnings []learn.Learning, done func(submission)) *tools.Set {
	return set.With(submitTool{done: done, learnings: learnings})
}

// parseSubmission decodes submit_review's arguments, tolerating the nulls
// strict mode asks for and the small slips models make (a severity in
// capitals, a missing category). It returns an error the model can act on
// when the arguments cannot be used at all, worded like every tool's. A
// finding may cite one of learnings by its number.
func parseSubmission(args tools.Args, learnings []learn.Learning) (submission, error) {
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
			Learning    *int    `json:"learning"`
		} `json:"findings"`
	}
	if err := args.Decode(&raw); err != nil {
		return submission{}, err
	}
	s := submission{Summary: strings.TrimSpace(raw.Summary), Findings: []result.Finding{}}
	for i, f := range raw.Findings {
		sev, err := result.ParseSeverity(f.Severity)
		if err != nil {
			return submission{}, args.Errorf(fmt.Sprintf("findings[%d].severity", i), "must be info, low, medium, high or critical, not %q", f.Severity)
		}
		// The quoted form the diff context shows a path with a newline in.
		path := text.UnquotePath(strings.TrimPrefix(strings.TrimSpace(f.Path), "./"))
		if path == "" {
			return submission{}, args.Errorf(fmt.Sprintf("findings[%d].path", i), "is missing; give the repository-relative path of the file")
		}
		n := result.Finding{
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
		if f.Learning != nil && *f.Learning != 0 {
			if !slices.ContainsFunc(learnings, func(l learn.Learning) bool { return l.N == *f.Learning }) {
				return submission{}, args.Errorf(fmt.Sprintf("findings[%d].learning", i), "is %d, which is not a learning in force here%s; give one of their numbers, or null", *f.Learning, numbers(learnings))
			}
			n.Learning = *f.Learning
		}
		s.Findings = append(s.Findings, n)
	}
	return s, nil
}

// checkFindings holds findings against the diff: a finding must be on a file
// the change touched, and on a line of one of its hunks; a finding elsewhere
// in a changed file is kept at file level or dropped, as policy says.
// Duplicates (same file, line and title or category) are merged, keeping the
// higher severity. The result is sorted by severity, then path and line.
func checkFindings(d *diffctx.Diff, fs []result.Finding, policy result.OffDiff) ([]result.Finding, []result.Dropped) {
	// Merge duplicates first, on the lines the model gave: two findings on
	// different lines are different even if both end up at file level.
	fs, dropped := dedupe(fs)
	var kept []result.Finding
	for _, f := range fs {
		file := d.File(f.Path)
		switch {
		case file == nil && earlier(d, f.Path):
			dropped = append(dropped, result.Dropped{Finding: f, Reason: fmt.Sprintf("%s changed only before %.12s, which an earlier review covered", f.Path, d.SinceSHA)})
			continue
		case file == nil:
			dropped = append(dropped, result.Dropped{Finding: f, Reason: "the change does not touch " + f.Path})
			continue
		case f.Line > 0 && !d.InHunk(f.Path, f.Line):
			if policy == result.DropOffDiff {
				dropped = append(dropped, result.Dropped{Finding: f, Reason: fmt.Sprintf("line %d of %s is outside the changed hunks", f.Line, f.Path)})
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

// dedupe merges findings on the same file that report the same thing:
// on the same line with a title or a category in common, or on lines near
// each other in the same words (the fingerprint: file, category and
// title without line references), as two units side by side report a
// defect they both see. The more severe finding stands, with the stronger
// evidence of the two, and distinct bodies are joined.
func dedupe(fs []result.Finding) ([]result.Finding, []result.Dropped) {
	var out []result.Finding
	var dropped []result.Dropped
	for _, f := range fs {
		dup := -1
		for i, o := range out {
			if o.Path == f.Path && (o.Line == f.Line && (strings.EqualFold(o.Title, f.Title) || o.Category == f.Category) ||
				near(o, f) && o.Fingerprint() == f.Fingerprint()) {
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
		if stronger(gone, kept) {
			// Its evidence is of its own lines: they are the ones kept.
			if kept.Line != gone.Line || kept.EndLine != gone.EndLine {
				kept.Line, kept.EndLine, kept.Replacement = gone.Line, gone.EndLine, gone.Replacement
			}
			kept.Evidence, kept.Grounded = gone.Evidence, gone.Grounded
		}
		out[dup] = kept
		dropped = append(dropped, result.Dropped{Finding: gone, Reason: fmt.Sprintf("merged into %q at %s:%d", kept.Title, kept.Path, kept.Line)})
	}
	return out, dropped
}

// near reports whether two findings on lines cite lines that overlap or
// lie within a few lines of each other.
func near(a, b result.Finding) bool {
	if a.Line <= 0 || b.Line <= 0 {
		return a.Line == b.Line
	}
	const slack = 3
	a0, a1 := a.Cites()
	b0, b1 := b.Cites()
	return a0 <= b1+slack && b0 <= a1+slack
}

// stronger reports whether a's evidence is stronger than b's: grounded
// where b is not, or as grounded with more lines shown.
func stronger(a, b result.Finding) bool {
	if a.Grounded != b.Grounded {
		return a.Grounded
	}
	return evidenceLines(a) > evidenceLines(b)
}

// evidenceLines counts the lines a finding's evidence holds.
func evidenceLines(f result.Finding) int {
	n := 0
	for _, e := range f.Evidence {
		n += e.EndLine - e.StartLine + 1
	}
	return n
}

// titleOf makes a title of a body: its first line, at most 100 runes.
func titleOf(body string) string {
	if r := []rune(text.FirstLine(body)); len(r) > 100 {
		return string(r[:100])
	}
	return text.FirstLine(body)
}
