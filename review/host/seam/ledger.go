package seam

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// The ledger of a change: what became of each finding review posted on a
// pull or merge request, across pushes. A finding is known by its
// fingerprint (result.Finding.Fingerprint: its file, rule and title, no
// line number, so it survives pushes that move its lines) and anchored to
// its code by the comment's marker (Anchor: the text of its lines when it
// was posted). The next review of the change reads the threads back
// (Earlier.Threads) and decides, in Reconcile:
//
//   - a thread a person resolved, marked 👎, or answered /review dismiss
//     in is dismissed: its finding is never posted again;
//   - a thread whose anchored lines are gone from the head (the commits
//     since changed them) and whose finding this review did not make again
//     is fixed: review resolves it;
//   - any other is open, and its finding is not posted twice.

// Thread is a finding's thread an earlier run started on a change, as the
// host shows it now.
type Thread struct {
	Fingerprint string
	// Run is the run that found the finding, from the comment's marker.
	Run string
	// Code anchors the finding to its lines (Anchor); "" when the comment
	// was posted without one.
	Code     string
	Severity result.Severity
	Path     string
	Line     int
	URL      string
	// ID names the thread to Poster.Resolve: GitHub's review thread node
	// ID, GitLab's discussion ID; "" when the host did not say.
	ID string
	// ReplyTo is where a reply in the thread goes (Poster.Reply's to).
	ReplyTo string
	// Resolved says the thread is resolved: by review itself (as fixed)
	// when ResolvedByUs, else by ResolvedBy, a person.
	Resolved     bool
	ResolvedByUs bool
	ResolvedBy   string
	// Outdated says the host shows the comment as outdated: the code it
	// was on has changed (GitHub).
	Outdated bool
	// Dismissed says how a person dismissed the finding, "" when nobody
	// did: a 👎 on the comment, or /review dismiss in its thread.
	Dismissed string
	// Rule is the finding's rule as its comment shows it (ReadRule).
	Rule string
	// Reopened says review resolved the thread as fixed and a person
	// reopened it since: review leaves it to them.
	Reopened bool
}

// ruleRE reads a finding's rule from its comment's first line after the
// marker, as CommentMarkdown writes it: "**[sev] title** · rule", and
// " · lines a-b" after it when the comment does not span them.
var ruleRE = lazy.Regexp(`^<!-- [^\n]* -->\n\*\*\[(?:info|low|medium|high|critical)\] [^\n]*\*\* · ([^\n]+?)(?: · lines \d+-\d+)?(?:\n|$)`)

// ReadRule reads the rule of a finding's comment, lower case; "" when it
// shows none.
func ReadRule(body string) string {
	m := ruleRE().FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(m[1]))
}

// ResolvedWhy is the why of a finding whose thread a person resolved.
func ResolvedWhy(who string) string { return "thread resolved by " + who }

// ThumbsDownWhy is the why of a finding a person marked 👎.
func ThumbsDownWhy(who string) string { return "marked 👎 by " + who }

// DismissWhy is the why of a finding dismissed with /review dismiss.
func DismissWhy(who string) string { return "/review dismiss by " + who }

// FixedMarker starts review's reply in the thread of a finding it
// resolved as fixed: a thread resolved with one was resolved by review.
func FixedMarker(fp string) string { return "<!-- review:fixed fp=" + fp + " -->" }

// FixedReply is review's reply in the thread of a finding it resolved as
// fixed, at head ("" when unknown).
func FixedReply(head string) string {
	at := ""
	if head != "" {
		at = " at " + Code(text.ShortSHA(head))
	}
	return "Fixed" + at + ": the lines this finding was on have changed and the review of the new commits did not find it again, so review resolved this thread."
}

// Markers of the ledger, read back only at the start of a body review
// wrote: a finding's comment carries its anchor (CommentMarker's more), a
// reply to /review dismiss the fingerprint it dismisses and who asked.
var (
	threadMarkerRE  = lazy.Regexp(`^<!-- review:fp=([0-9a-f]+) run=(\S*)((?: [a-z]+=\S*)*) -->`)
	dismissMarkerRE = lazy.Regexp(`^<!-- review:dismissed fp=([0-9a-f]+) by=(\S+) -->`)
	anchorRE        = lazy.Regexp(`^[0-9]{1,3}-[0-9a-f]{16}$`)
)

// AnchorField is the marker field that carries a comment's anchor.
func AnchorField(code string) string {
	if code == "" {
		return ""
	}
	return "code=" + code
}

// ReadThreadMarker reads the marker at the start of a finding's comment:
// its fingerprint, run and anchor ("" when it has none).
func ReadThreadMarker(body string) (fp, run, code string, ok bool) {
	m := threadMarkerRE().FindStringSubmatch(body)
	if m == nil {
		return "", "", "", false
	}
	for _, f := range strings.Fields(m[3]) {
		if v, ok := strings.CutPrefix(f, "code="); ok && anchorRE().MatchString(v) {
			code = v
		}
	}
	return m[1], m[2], code, true
}

// DismissMarker starts review's reply to /review dismiss in a finding's
// thread: the next review reads the dismissal back from it.
func DismissMarker(fp, who string) string {
	return fmt.Sprintf("<!-- review:dismissed fp=%s by=%s -->", fp, Login(who))
}

// Login is a person's login as a marker may carry it: letters, digits
// and "_.-[]" (github-actions[bot]), no run of dashes; "someone" when
// nothing is left.
func Login(who string) string {
	who = strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-[]", r)) {
			return r
		}
		return -1
	}, who)
	for strings.Contains(who, "--") {
		who = strings.ReplaceAll(who, "--", "-")
	}
	if who == "" {
		return "someone"
	}
	return text.Truncate(who, 60)
}

// ReadDismissMarker reads the marker of a reply to /review dismiss.
func ReadDismissMarker(body string) (fp, who string, ok bool) {
	m := dismissMarkerRE().FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// maxAnchorLines bounds the lines an anchor holds: a finding on a long
// range is anchored to its first lines.
const maxAnchorLines = 30

// Anchor is the code a finding on lines line..end (end 0: line alone) of
// content is about, as "n-hash": how many lines (at most 30, and not past
// the file's end), and a hash of their text with the spaces around each
// trimmed, so that a change of indentation is not a change of the code. ""
// when the file has no such line.
func Anchor(content []byte, line, end int) string {
	if line <= 0 {
		return ""
	}
	end = max(end, line)
	end = min(end, line+maxAnchorLines-1)
	lines := splitLines(content)
	if line > len(lines) {
		return ""
	}
	return anchorOf(lines[line-1 : min(end, len(lines))])
}

// Present reports whether the code an anchor names is still in content,
// at any line: a push that only moves it leaves it present.
func Present(code string, content []byte) bool {
	n, _, ok := strings.Cut(code, "-")
	if !ok {
		return false
	}
	size, err := strconv.Atoi(n)
	if err != nil || size <= 0 {
		return false
	}
	lines := splitLines(content)
	for i := 0; i+size <= len(lines); i++ {
		if anchorOf(lines[i:i+size]) == code {
			return true
		}
	}
	return false
}

func splitLines(content []byte) []string {
	s := strings.ReplaceAll(string(content), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func anchorOf(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte('\n')
	}
	sum := sha256.Sum256(b.Bytes())
	return strconv.Itoa(len(lines)) + "-" + hex.EncodeToString(sum[:8])
}

// Ledger is what a review decides about the findings posted on a change
// before it (Reconcile).
type Ledger struct {
	// Entries are every finding's state, earlier runs' and this one's,
	// for --format json.
	Entries []result.LedgerEntry
	// Suppressed are the findings a person dismissed, by fingerprint,
	// with why: this review's among them are not posted.
	Suppressed map[string]string
	// Same are this review's findings that an earlier run posted in other
	// words: on the same code (the same anchor), file and rule, their
	// thread open. They are not posted twice; the value is the thread's
	// address.
	Same map[string]string
	// Fixed are the threads review resolves: their lines changed and the
	// finding was not made again.
	Fixed []Thread
	// Closed are the fingerprints no longer open (fixed or dismissed):
	// the gate does not count them.
	Closed map[string]bool
}

// Reconcile decides the state of each finding posted on a change before
// this review, whose findings are fs, made by run. present reports whether
// a thread's anchored code is still at the head; a thread without an
// anchor counts as present unless the host shows it outdated. A
// fingerprint with several threads takes the first, and counts as
// dismissed when any of them was.
//
// A finding of this review whose fingerprint no thread has, but whose
// lines, file and rule are those of a thread (anchor gives its anchor at
// the head; nil matches none), is that thread's finding in other words: a
// model seldom words a title twice alike. It is suppressed when that one
// was dismissed, and not posted twice when it is open (Same).
func Reconcile(threads []Thread, fs []result.Finding, run string, present func(Thread) bool, anchor func(result.Finding) string) Ledger {
	l := Ledger{Suppressed: map[string]string{}, Same: map[string]string{}, Closed: map[string]bool{}}
	var order []string
	byFP := map[string][]Thread{}
	for _, t := range threads {
		if t.Fingerprint == "" {
			continue
		}
		if _, ok := byFP[t.Fingerprint]; !ok {
			order = append(order, t.Fingerprint)
		}
		byFP[t.Fingerprint] = append(byFP[t.Fingerprint], t)
	}
	as, found := sameAs(threads, byFP, fs, anchor)
	for _, fp := range order {
		l.Entries = append(l.Entries, l.settle(fp, byFP[fp], found[fp], present))
	}
	for _, f := range fs {
		fp := f.Fingerprint()
		if other, ok := as[fp]; ok {
			if why, ok := l.Suppressed[other]; ok {
				l.Suppressed[fp] = why
				continue
			}
			if !l.Closed[other] {
				l.Same[fp] = byFP[other][0].URL
				continue
			}
		}
		if _, ok := byFP[fp]; ok {
			continue
		}
		byFP[fp] = nil
		l.Entries = append(l.Entries, result.LedgerEntry{Fingerprint: fp, State: result.LedgerOpen, Run: run, Path: f.Path, Line: f.Line})
	}
	return l
}

// sameAs finds, for each finding of fs whose fingerprint no thread has,
// the thread it is the finding of in other words (Reconcile), by
// fingerprint; found holds the fingerprints this review made, in its
// words or in a thread's.
func sameAs(threads []Thread, byFP map[string][]Thread, fs []result.Finding, anchor func(result.Finding) string) (as map[string]string, found map[string]bool) {
	as, found = map[string]string{}, map[string]bool{}
	for _, f := range fs {
		fp := f.Fingerprint()
		found[fp] = true
		if _, ok := byFP[fp]; ok || anchor == nil {
			continue
		}
		code, rule := "", strings.ToLower(NeutralLine(f.RuleID()))
		for _, t := range threads {
			if t.Code == "" || t.Path != f.Path || t.Rule != rule {
				continue
			}
			if code == "" {
				if code = anchor(f); code == "" {
					break
				}
			}
			if code == t.Code {
				as[fp] = t.Fingerprint
				found[t.Fingerprint] = true
				break
			}
		}
	}
	return as, found
}

// settle decides the state of the finding fp whose threads are ts, found
// again by this review or not, and records what follows in l.
func (l *Ledger) settle(fp string, ts []Thread, found bool, present func(Thread) bool) result.LedgerEntry {
	first := ts[0]
	e := result.LedgerEntry{Fingerprint: fp, State: result.LedgerOpen, Run: first.Run, Path: first.Path, Line: first.Line, URL: first.URL}
	why, allOurs := dismissedWhy(ts), true
	for _, t := range ts {
		allOurs = allOurs && t.Resolved && t.ResolvedByUs
	}
	switch {
	case why != "":
		e.State, e.Why = result.LedgerDismissed, why
		l.Closed[fp] = true
		l.Suppressed[fp] = why
	case found:
		// Made again: still there, and not posted twice.
	case allOurs:
		e.State, e.Why = result.LedgerFixed, whyFixedBefore
		l.Closed[fp] = true
	case reopened(ts):
		e.Why = "reopened by a person after review resolved it as fixed"
	case !stillThere(first, present):
		e.State, e.Why = result.LedgerFixed, whyFixedNow
		l.Closed[fp] = true
		for _, t := range ts {
			if !t.Resolved {
				l.Fixed = append(l.Fixed, t)
			}
		}
	}
	return e
}

// dismissedWhy says how a person dismissed the finding of threads ts, ""
// when nobody did.
func dismissedWhy(ts []Thread) string {
	for _, t := range ts {
		switch {
		case t.Dismissed != "":
			return t.Dismissed
		case t.Resolved && !t.ResolvedByUs:
			who := t.ResolvedBy
			if who == "" {
				who = "a person"
			}
			return ResolvedWhy(who)
		}
	}
	return ""
}

// The whys of a fixed finding: fixed by the commits this review covered,
// or before, its thread resolved by an earlier run.
const (
	whyFixedNow    = "its lines changed and this review did not find it again"
	whyFixedBefore = "resolved by review: its lines changed"
)

// dismissedPrefix starts the reason of a suppressed finding a person
// dismissed.
const dismissedPrefix = "dismissed on an earlier review: "

// LedgerNote says, in Markdown, what the ledger kept from being posted and
// what it found fixed, for the review's summary; "" when neither.
func LedgerNote(r *result.Result) string {
	fixed := 0
	for _, e := range r.Ledger {
		if e.State == result.LedgerFixed && e.Why == whyFixedNow {
			fixed++
		}
	}
	dismissed := 0
	for _, d := range r.Suppressed {
		if strings.HasPrefix(d.Reason, dismissedPrefix) {
			dismissed++
		}
	}
	var parts []string
	if dismissed > 0 {
		parts = append(parts, fmt.Sprintf("%s dismissed on earlier reviews not posted again", text.Plural(dismissed, "finding")))
	}
	if n := len(r.Suppressed) - dismissed; n > 0 {
		parts = append(parts, fmt.Sprintf("%s posted before in other words not repeated", text.Plural(n, "finding")))
	}
	if fixed > 0 {
		parts = append(parts, fmt.Sprintf("%s fixed by these commits, %s resolved", text.Plural(fixed, "finding"), map[bool]string{true: "its thread", false: "their threads"}[fixed == 1]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "_" + strings.Join(parts, "; ") + "._\n\n"
}

func reopened(ts []Thread) bool {
	for _, t := range ts {
		if t.Reopened {
			return true
		}
	}
	return false
}

func stillThere(t Thread, present func(Thread) bool) bool {
	if t.Code == "" {
		return !t.Outdated
	}
	return present == nil || present(t)
}

// Suppress moves r's findings that l suppresses to r.Suppressed, and sets
// r.Ledger.
func (l Ledger) Suppress(r *result.Result) {
	kept := r.Findings[:0:0]
	for _, f := range r.Findings {
		if why, ok := l.Suppressed[f.Fingerprint()]; ok {
			r.Suppressed = append(r.Suppressed, result.Dropped{Finding: f, Reason: dismissedPrefix + why})
			continue
		}
		if u, ok := l.Same[f.Fingerprint()]; ok {
			r.Suppressed = append(r.Suppressed, result.Dropped{Finding: f, Reason: strings.TrimSpace("posted before on the same lines, with the same rule, in other words: " + u)})
			continue
		}
		kept = append(kept, f)
	}
	if kept == nil {
		kept = []result.Finding{}
	}
	r.Findings = kept
	r.Ledger = l.Entries
}
