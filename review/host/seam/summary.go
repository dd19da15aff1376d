package seam

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// The summary a host keeps on a change: one comment (a note on GitLab),
// updated in place by every run, that lists what was not posted on lines,
// names the heads reviewed (the start of a later run's --since), and
// keeps, under the review that found them, the findings an earlier run
// listed on files the commits reviewed since did not change.

// Words are how a host names what its summary speaks of.
type Words struct {
	// Host is the host's name: "GitLab".
	Host string
	// Thread is a finding's thread on a line, and Summary the summary
	// itself: "discussion" and "note" on GitLab.
	Thread, Summary string
	// Change is what the host calls the change: "merge request".
	Change string
	// Max is the longest body the host takes, in bytes.
	Max int
}

// Summary is the findings of a run sorted into threads on lines, the
// summary, and those an earlier run posted, with the findings of earlier
// reviews the summary keeps.
type Summary struct {
	Inline   []result.Finding
	Body     []result.Finding
	Repeated []Repeated
	Carried  []Listed // oldest first
	Cut      int      // the oldest of Carried, left out to bound the summary
	Unplaced int      // findings the host would not place on their line
	Unnamed  int      // findings on a file whose name is not UTF-8 (Nameable)
}

// Write writes the summary (see render) within the host's limit: the
// findings of earlier reviews that do not fit are cut, the oldest first,
// before the run's own; CapBody cuts what is still too long. heads are
// the heads reviewed, oldest first, this run's last.
func (p Summary) Write(r *result.Result, heads []string, w Words) string {
	if n := len(p.Carried) - MaxCarried; n > 0 {
		p.Cut, p.Carried = p.Cut+n, p.Carried[n:]
	}
	body := p.render(r, heads, w)
	if len(body) > w.Max && len(p.Carried) > 0 {
		all, cut := p.Carried, p.Cut
		p.Carried = nil
		// 400 bytes hold the section's frame and the cut notice.
		room := w.Max - len(p.render(r, heads, w)) - 400
		var n int
		p.Carried, n = bound(all, room)
		p.Cut = cut + n
		body = p.render(r, heads, w)
	}
	return CapBody(body, w.Max, w.Host)
}

// render writes the summary: its marker (run, head and the heads
// before), the markers of the findings it lists (ListedMarker), counts,
// summary, the findings not posted on lines, those of earlier reviews it
// keeps, those posted before, and usage.
func (p Summary) render(r *result.Result, heads []string, w Words) string {
	var b strings.Builder
	head := heads[len(heads)-1]
	var more []string
	if len(heads) > 1 {
		more = append(more, "heads="+strings.Join(heads[:len(heads)-1], ","))
	}
	b.WriteString(ReviewMarker(r.RunID, head, more...) + "\n")
	for _, l := range p.Carried {
		b.WriteString(ListedMarker(l) + "\n")
	}
	for _, f := range p.Body {
		b.WriteString(ListedMarker(Listed{Head: head, Finding: f}) + "\n")
	}
	fmt.Fprintf(&b, "### review: %s\n\n", result.CountFindings(r.Findings))
	fmt.Fprintf(&b, "_Reviewed %s._\n\n", Code(text.ShortSHA(head)))
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(Neutralize(s) + "\n\n")
	}
	b.WriteString(CoverageNote(r))
	b.WriteString(LedgerNote(r))
	if r.Since != "" {
		kept := ""
		if len(p.Carried) > 0 {
			kept = ", and those this " + w.Summary + " listed on files these commits did not change stay below"
		}
		fmt.Fprintf(&b, "_The commits since %s were reviewed; the findings of earlier reviews stay in their %ss%s._\n\n", Code(text.ShortSHA(r.Since)), w.Thread, kept)
	}
	if p.Unplaced > 0 {
		fmt.Fprintf(&b, "_%s did not accept %s on the lines of this %s's diff, so they are listed here._\n\n", w.Host, text.Plural(p.Unplaced, w.Thread), w.Change)
	}
	if p.Unnamed > 0 {
		b.WriteString(UnnamedNote(w.Host))
	}
	if n := len(p.Inline); n > 0 {
		fmt.Fprintf(&b, "%s on the changed lines.\n\n", text.Plural(n, w.Thread))
	}
	if len(p.Body) > 0 {
		if len(p.Inline) > 0 {
			b.WriteString("#### Other findings\n\n")
		}
		for i, f := range p.Body {
			WriteFinding(&b, i+1, f)
		}
	}
	writeCarried(&b, p.Carried, p.Cut, w)
	WriteRepeated(&b, "Posted by an earlier run", w.Thread, p.Repeated)
	b.WriteString(StateLine(r))
	b.WriteString("---\n" + r.UsageLine() + "\n")
	return b.String()
}

// WriteFinding writes the nth finding of a list in a summary.
func WriteFinding(b *strings.Builder, n int, f result.Finding) {
	fmt.Fprintf(b, "**%d. [%s] %s** · %s · %s\n\n", n, f.Severity,
		NeutralLine(text.OneLine(f.Title, 0)), Code(f.Location()), NeutralLine(f.RuleID()))
	if md := FindingMarkdown(f, 0); md != "" {
		b.WriteString(NeutralizeSuggestions(md) + "\n\n")
	}
}

// EarlierHeads reads the heads= list of a summary marker's extra fields.
func EarlierHeads(more string) []string {
	for _, f := range strings.Fields(more) {
		if v, ok := strings.CutPrefix(f, "heads="); ok {
			var hs []string
			for _, h := range strings.Split(v, ",") {
				if SHA().MatchString(h) {
					hs = append(hs, strings.ToLower(h))
				}
			}
			return hs
		}
	}
	return nil
}

// MaxCarried bounds the findings of earlier reviews a summary keeps:
// past it, a collapsed list is read by nobody.
const MaxCarried = 100

// Listed is a finding a summary lists rather than a thread on its line, with
// the head of the review that found it. The summary only has the latest
// review's words; a finding only it listed would be lost when a later run
// rewrites it, so each is kept in a marker of its own and read back
// exactly (see Carry).
type Listed struct {
	Head string
	result.Finding
}

// listedRE matches a listed finding's marker: the head and the finding as
// base64url JSON, which keeps "-->" and the finding's words, which people
// search for in the note, out of the comment.
var listedRE = lazy.Regexp(`^<!-- review:listed head=([0-9A-Fa-f]{7,64}) finding=([A-Za-z0-9_-]+) -->$`)

// ListedMarker is l's marker line. Finding's JSON names a file that is
// not UTF-8 in its quoted form, so it is read back as it was.
func ListedMarker(l Listed) string {
	b, err := json.Marshal(l.Finding)
	if err != nil {
		return "" // a Finding always marshals
	}
	return fmt.Sprintf("<!-- review:listed head=%s finding=%s -->", l.Head, base64.RawURLEncoding.EncodeToString(b))
}

// ReadListed reads the findings a summary lists, from the markers
// on the lines right after its review marker. Only that leading run
// counts: a marker quoted in a finding's text, further down, never does.
func ReadListed(body string) []Listed {
	lines := strings.Split(body, "\n")
	var ls []Listed
	for _, l := range lines[1:] {
		m := listedRE().FindStringSubmatch(strings.TrimSuffix(l, "\r"))
		if m == nil {
			break
		}
		b, err := base64.RawURLEncoding.DecodeString(m[2])
		var f result.Finding
		if err != nil || json.Unmarshal(b, &f) != nil || f.Path == "" || f.Severity.Rank() == 0 {
			continue
		}
		ls = append(ls, Listed{Head: strings.ToLower(m[1]), Finding: f})
	}
	return ls
}

// Carry picks, of the findings an earlier summary listed, those the
// note keeps for this run r of diff d. A whole review (no --since)
// re-reviewed every file: its findings replace the earlier ones, as its
// gate ignores the earlier discussions. A review of the commits since an
// earlier one keeps a finding on a file those commits did not change (in
// d.Earlier) that r did not find again (by fingerprint); one on a file
// they changed was reviewed again, and one on a file the change no longer
// touches is gone with it.
func Carry(old []Listed, r *result.Result, d *diffctx.Diff) []Listed {
	if r.Since == "" || d == nil {
		return nil
	}
	found := make(map[string]bool, len(r.Findings))
	for _, f := range r.Findings {
		found[f.Fingerprint()] = true
	}
	untouched := make(map[string]bool, len(d.Earlier))
	for _, f := range d.Earlier {
		untouched[f.Path] = true
	}
	var kept []Listed
	for _, l := range old {
		if untouched[l.Path] && !found[l.Fingerprint()] {
			kept = append(kept, l)
		}
	}
	return kept
}

// writeCarried writes the collapsed section of the findings of earlier
// reviews, by the review that found them, oldest first; cut counts those
// left out to bound the note.
func writeCarried(b *strings.Builder, ls []Listed, cut int, w Words) {
	if len(ls) == 0 && cut == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Findings of earlier reviews (%d)</summary>\n\n", len(ls))
	b.WriteString("_Listed here by earlier reviews, on files the commits reviewed since did not change._\n\n")
	if cut > 0 {
		fmt.Fprintf(b, "_The oldest %s left out: this %s keeps at most %d, within %s's length limit._\n\n", text.Plural(cut, "finding"), w.Summary, MaxCarried, w.Host)
	}
	for i, l := range ls {
		if i == 0 || l.Head != ls[i-1].Head {
			fmt.Fprintf(b, "##### Found by the review of %s\n\n", Code(text.ShortSHA(l.Head)))
		}
		WriteFinding(b, i+1, l.Finding)
	}
	b.WriteString("</details>\n\n")
}

// carriedCost is what l adds to a note: its marker, its entry and, at
// most, a heading.
func carriedCost(l Listed) int {
	var b strings.Builder
	WriteFinding(&b, MaxCarried, l.Finding)
	return len(ListedMarker(l)) + 1 + b.Len() + len("##### Found by the review of ``\n\n") + len(text.ShortSHA(l.Head))
}

// bound keeps the newest of ls that fit in room bytes, and says how many
// older ones it cut.
func bound(ls []Listed, room int) (kept []Listed, cut int) {
	i := len(ls)
	for ; i > 0; i-- {
		c := carriedCost(ls[i-1])
		if c > room {
			break
		}
		room -= c
	}
	return ls[i:], i
}

// MaxHeads bounds the earlier heads a summary remembers.
const MaxHeads = 50

// NextHeads are the heads a summary names after a review of head: those
// it named, oldest first, then head, at most MaxHeads.
func NextHeads(heads []string, head string) []string {
	hs := append(append([]string(nil), heads...), head)
	if len(hs) > MaxHeads {
		hs = hs[len(hs)-MaxHeads:]
	}
	return hs
}

// PlanLines sorts r's findings, a review of d, for a host that comments on
// the lines of the diff's hunks: a finding is Inline when its line is
// inside a hunk, unless an earlier run commented it (earlier: its address
// by fingerprint; it is Repeated) or its file's name is not one a host's
// API can carry (Nameable; it goes into Body, counted in Unnamed); every
// other finding goes into Body. inline false puts every new finding in
// Body, in the order found: the plan of a review whose comments the host
// would not place.
func PlanLines(r *result.Result, d *diffctx.Diff, earlier map[string]string, inline bool) Summary {
	var p Summary
	for _, f := range r.Findings {
		if f.Line <= 0 || d == nil || !d.InHunk(f.Path, f.Line) {
			p.Body = append(p.Body, f)
			continue
		}
		if !Nameable(f.Path) {
			p.Unnamed++
			p.Body = append(p.Body, f)
			continue
		}
		if u, ok := earlier[f.Fingerprint()]; ok {
			p.Repeated = append(p.Repeated, Repeated{Finding: f, URL: u})
			continue
		}
		if !inline {
			p.Body = append(p.Body, f)
			continue
		}
		p.Inline = append(p.Inline, f)
	}
	return p
}
