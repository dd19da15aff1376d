package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// runScenario runs sc with bin in dir.
func runScenario(sc scenario, bin, dir string) (*outcome, error) {
	e, err := newEnv(bin, dir)
	if err != nil {
		return nil, err
	}
	err = sc.run(e)
	if err == nil && len(e.out.bodies) == 0 {
		err = fmt.Errorf("the model received no request")
	}
	return e.out, err
}

// What differs from run to run and is not the code's doing.
var (
	// Run IDs: the time to the second and six base32 characters.
	runIDRe = regexp.MustCompile(`\b\d{8}-\d{6}-[a-z2-7]{6}\b`)
	// Tool-memory refs (ten base32 characters, a hash of the run ID and
	// the call), where previews, stubs, pages and calls name them: after
	// "ref", quoted or escaped as JSON in JSON, or in "[output REF: …".
	refRe = regexp.MustCompile(`\b(?:ref|output)(?:\\*"?\s*[:=]\s*\\*"?|\s+)([0-9]{12}|[a-z2-7]{10})\b`)
	// Times as RFC 3339 writes them.
	timeRe = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)
	// The scripted server's address.
	serverRe = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalise rewrites every body of o: each run ID and ref becomes RUN1,
// REF1... numbered in order of first appearance in the scenario (so one
// that comes back is still the same name), times become TIME, the
// scenario's directory $DIR and the server's address $SERVER.
func (o *outcome) normalise(dir string) {
	names := map[string]string{}
	name := func(kind, s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		count := 0
		for _, n := range names {
			if strings.HasPrefix(n, kind) {
				count++
			}
		}
		names[s] = fmt.Sprintf("%s%d", kind, count+1)
		return names[s]
	}
	// Refs first, in order, over every body: a ref may be named before
	// the body that shows it as a ref (a stub of the summary).
	var refs []string
	for _, b := range o.bodies {
		for _, m := range refRe.FindAllSubmatch(b, -1) {
			refs = append(refs, string(m[1]))
		}
	}
	for _, r := range refs {
		name("REF", r)
	}
	for i, b := range o.bodies {
		b = bytes.ReplaceAll(b, []byte(dir), []byte("$DIR"))
		b = runIDRe.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(name("RUN", string(m))) })
		for _, r := range refs {
			b = bytes.ReplaceAll(b, []byte(r), []byte(names[r]))
		}
		b = timeRe.ReplaceAll(b, []byte("TIME"))
		b = serverRe.ReplaceAll(b, []byte("$SERVER"))
		o.bodies[i] = b
	}
}

// notePrunes notes the requests before which earlier turns changed: the
// first request of a turn whose messages do not begin with the last
// request's messages (previews became stubs, turns went to the summary).
func (o *outcome) notePrunes() {
	var prev []json.RawMessage
	var at []string
	for i, b := range o.bodies {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(b, &req) != nil {
			continue
		}
		if prev != nil && !extends(req.Messages, prev) {
			at = append(at, fmt.Sprint(i+1))
		}
		prev = req.Messages
	}
	if len(at) == 0 {
		o.notes = append(o.notes, "history never pruned")
		return
	}
	o.notes = append(o.notes, "history pruned before request "+strings.Join(at, ", "))
}

// extends reports whether msgs begins with prefix; the last message of
// prefix may have been a request for the final answer, so it is left out.
func extends(msgs, prefix []json.RawMessage) bool {
	if len(prefix) > 0 {
		prefix = prefix[:len(prefix)-1]
	}
	if len(msgs) < len(prefix) {
		return false
	}
	for i := range prefix {
		if !bytes.Equal(msgs[i], prefix[i]) {
			return false
		}
	}
	return true
}

// write writes o's bodies to dir as req-001.json...
func (o *outcome) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, b := range o.bodies {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("req-%03d.json", i+1)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// verdict is a scenario's line: its requests and bytes, and identical or
// the first request that differs with a short diff of it.
func verdict(label string, old, new *outcome) (string, bool) {
	size := func(o *outcome) int {
		n := 0
		for _, b := range o.bodies {
			n += len(b)
		}
		return n
	}
	notes := ""
	if len(new.notes) > 0 {
		notes = " (" + strings.Join(new.notes, "; ") + ")"
	}
	for i := 0; i < max(len(old.bodies), len(new.bodies)); i++ {
		switch {
		case i >= len(old.bodies):
			return fmt.Sprintf("%s: DIFFER: %d requests before, %d after; request %d is new%s\n%s", label, len(old.bodies), len(new.bodies), i+1, notes, indent(excerpt(new.bodies[i]), "    + ")), true
		case i >= len(new.bodies):
			return fmt.Sprintf("%s: DIFFER: %d requests before, %d after; request %d is no longer sent%s\n%s", label, len(old.bodies), len(new.bodies), i+1, notes, indent(excerpt(old.bodies[i]), "    - ")), true
		case !bytes.Equal(old.bodies[i], new.bodies[i]):
			return fmt.Sprintf("%s: DIFFER at request %d of %d (%s bytes before, %s after)%s\n%s", label, i+1, len(new.bodies),
				thousands(len(old.bodies[i])), thousands(len(new.bodies[i])), notes, diff(old.bodies[i], new.bodies[i])), true
		}
	}
	return fmt.Sprintf("%s: %d requests, %s bytes: identical%s", label, len(new.bodies), thousands(size(new)), notes), false
}

// diff is a short line diff of two bodies, indented as JSON: the lines
// around the first difference, before (-) and after (+), each cut to 160
// characters.
func diff(a, b []byte) string {
	la, lb := lines(a), lines(b)
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	i, j := resync(la[p:], lb[p:])
	var out []string
	if p > 0 {
		out = append(out, "      "+cut(la[p-1], 0))
	}
	// Long lines are shown from a little before their first difference.
	from := 0
	if i > 0 && j > 0 {
		from = max(0, commonPrefix(la[p], lb[p])-60)
	}
	for _, side := range []struct {
		sign  string
		lines []string
	}{{"    - ", la[p : p+i]}, {"    + ", lb[p : p+j]}} {
		for i, l := range side.lines {
			if i == 6 {
				out = append(out, fmt.Sprintf("%s… %d lines more", side.sign, len(side.lines)-i))
				break
			}
			if i > 0 {
				from = 0
			}
			out = append(out, side.sign+cut(l, from))
		}
	}
	return strings.Join(out, "\n")
}

// resync is where a and b, which differ in their first line, agree again:
// the fewest lines of each to skip (i of a, j of b) after which three
// lines match, or all of both. Only the first difference is shown.
func resync(a, b []string) (int, int) {
	const most = 400
	agree := func(i, j int) bool {
		for k := 0; k < 3; k++ {
			if i+k >= len(a) || j+k >= len(b) {
				return i+k == len(a) && j+k == len(b)
			}
			if a[i+k] != b[j+k] {
				return false
			}
		}
		return true
	}
	for d := 1; d <= 2*most; d++ {
		for i := max(0, d-most); i <= min(d, most); i++ {
			if j := d - i; i <= len(a) && j <= len(b) && agree(i, j) {
				return i, j
			}
		}
	}
	return len(a), len(b)
}

// commonPrefix is the number of runes a and b begin with alike.
func commonPrefix(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// lines is body indented as JSON (as it is, if it is not JSON), in lines;
// long strings are split at their escaped newlines, so that a changed
// word in a prompt shows as its own line.
func lines(body []byte) []string {
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") != nil {
		buf.Reset()
		buf.Write(body)
	}
	return strings.Split(strings.ReplaceAll(buf.String(), `\n`, "\\n\n"), "\n")
}

func excerpt(body []byte) string {
	l := lines(body)
	if len(l) > 6 {
		l = l[:6]
	}
	for i := range l {
		l[i] = cut(l[i], 0)
	}
	return strings.Join(l, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// cut is s from rune from on, at most 160 runes of it.
func cut(s string, from int) string {
	r := []rune(strings.TrimRight(s, "\r"))
	head, tail := "", ""
	if from > 0 && from < len(r) {
		r, head = r[from:], "…"
	}
	if len(r) > 160 {
		r, tail = r[:160], "…"
	}
	return head + string(r) + tail
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
