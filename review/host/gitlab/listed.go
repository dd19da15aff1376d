package gitlab

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host"
	"github.com/reviewdev/review/review/result"
)

// maxCarried bounds the findings of earlier reviews a summary note keeps:
// past it, a collapsed list is read by nobody.
const maxCarried = 100

// listed is a finding a summary note lists rather than a discussion, with
// the head of the review that found it. The note only has the latest
// review's words; a finding only it listed would be lost when a later run
// rewrites it, so each is kept in a marker of its own and read back
// exactly (see carry).
type listed struct {
	head string
	result.Finding
}

// listedRE matches a listed finding's marker: the head and the finding as
// base64url JSON, which keeps "-->" and the finding's words, which people
// search for in the note, out of the comment.
var listedRE = regexp.MustCompile(`^<!-- review:listed head=([0-9A-Fa-f]{7,64}) finding=([A-Za-z0-9_-]+) -->$`)

// listedMarker is l's marker line. Finding's JSON names a file that is
// not UTF-8 in its quoted form, so it is read back as it was.
func listedMarker(l listed) string {
	b, err := json.Marshal(l.Finding)
	if err != nil {
		return "" // a Finding always marshals
	}
	return fmt.Sprintf("<!-- review:listed head=%s finding=%s -->", l.head, base64.RawURLEncoding.EncodeToString(b))
}

// readListed reads the findings a summary note lists, from the markers
// on the lines right after its review marker. Only that leading run
// counts: a marker quoted in a finding's text, further down, never does.
func readListed(body string) []listed {
	lines := strings.Split(body, "\n")
	var ls []listed
	for _, l := range lines[1:] {
		m := listedRE.FindStringSubmatch(strings.TrimSuffix(l, "\r"))
		if m == nil {
			break
		}
		b, err := base64.RawURLEncoding.DecodeString(m[2])
		var f result.Finding
		if err != nil || json.Unmarshal(b, &f) != nil || f.Path == "" || f.Severity.Rank() == 0 {
			continue
		}
		ls = append(ls, listed{head: strings.ToLower(m[1]), Finding: f})
	}
	return ls
}

// carry picks, of the findings an earlier summary note listed, those the
// note keeps for this run r of diff d. A whole review (no --since)
// re-reviewed every file: its findings replace the earlier ones, as its
// gate ignores the earlier discussions. A review of the commits since an
// earlier one keeps a finding on a file those commits did not change (in
// d.Earlier) that r did not find again (by fingerprint); one on a file
// they changed was reviewed again, and one on a file the change no longer
// touches is gone with it.
func carry(old []listed, r *result.Result, d *diffctx.Diff) []listed {
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
	var kept []listed
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
func writeCarried(b *strings.Builder, ls []listed, cut int) {
	if len(ls) == 0 && cut == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Findings of earlier reviews (%d)</summary>\n\n", len(ls))
	b.WriteString("_Listed here by earlier reviews, on files the commits reviewed since did not change._\n\n")
	if cut > 0 {
		fmt.Fprintf(b, "_The oldest %s left out: this note keeps at most %d, within GitLab's length limit._\n\n", text.Plural(cut, "finding"), maxCarried)
	}
	for i, l := range ls {
		if i == 0 || l.head != ls[i-1].head {
			fmt.Fprintf(b, "##### Found by the review of %s\n\n", host.Code(text.ShortSHA(l.head)))
		}
		writeFinding(b, i+1, l.Finding)
	}
	b.WriteString("</details>\n\n")
}

// carriedCost is what l adds to a note: its marker, its entry and, at
// most, a heading.
func carriedCost(l listed) int {
	var b strings.Builder
	writeFinding(&b, maxCarried, l.Finding)
	return len(listedMarker(l)) + 1 + b.Len() + len("##### Found by the review of ``\n\n") + len(text.ShortSHA(l.head))
}

// bound keeps the newest of ls that fit in room bytes, and says how many
// older ones it cut.
func bound(ls []listed, room int) (kept []listed, cut int) {
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
