package conversation

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
)

// DigestHeader starts every rule-based summary.
const DigestHeader = "Summary of earlier turns pruned from this conversation (their tool outputs stay available with " + toolname.ReadToolOutput + " and the refs below):"

// digest is the rule-based summary of dropped turns: per turn, what was
// asked, which tools ran (with refs), which files were read, which findings
// were made and what was concluded. It extends prev, the summary so far.
func digest(prev string, dropped []Message) string {
	byTurn := map[int][]Message{}
	for _, m := range dropped {
		byTurn[m.Turn] = append(byTurn[m.Turn], m)
	}
	digests := make(map[int]string, len(byTurn))
	for t, msgs := range byTurn {
		digests[t] = turnDigest(t, msgs)
	}
	return joinDigest(prev, digests)
}

// joinDigest extends prev by the digests of turns, in turn order. Pruning
// keeps each dropped turn's digest as it makes it, so the summary grows by
// joining them rather than digesting every dropped message again.
func joinDigest(prev string, digests map[int]string) string {
	var b strings.Builder
	b.WriteString(DigestHeader)
	if body, ok := strings.CutPrefix(prev, DigestHeader); ok {
		b.WriteString(strings.TrimRight(body, "\n"))
	} else if strings.TrimSpace(prev) != "" {
		b.WriteString("\n" + strings.TrimSpace(prev))
	}
	turns := make([]int, 0, len(digests))
	for t := range digests {
		turns = append(turns, t)
	}
	sort.Ints(turns)
	for _, t := range turns {
		b.WriteString(digests[t])
	}
	return b.String()
}

// turnDigest is the digest of one dropped turn: its lines, each starting
// with a line break.
func turnDigest(turn int, msgs []Message) string {
	var b strings.Builder
	writeTurnDigest(&b, turn, msgs)
	return b.String()
}

func writeTurnDigest(b *strings.Builder, turn int, msgs []Message) {
	var asked, concluded string
	var tools, files, findings []string
	refs := map[string]string{}
	for _, m := range msgs {
		if m.Role == Tool && m.Ref != "" {
			refs[m.ToolCallID] = m.Ref
		}
	}
	seenFile := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case User:
			if asked == "" {
				asked = text.OneLine(m.Content, 200)
			}
		case Assistant:
			if strings.TrimSpace(m.Content) != "" {
				concluded = text.OneLine(m.Content, 300)
			}
			for _, tc := range m.ToolCalls {
				var args struct {
					Path     string `json:"path"`
					Summary  string `json:"summary"`
					Findings []struct {
						Path     string `json:"path"`
						Line     int    `json:"line"`
						Severity string `json:"severity"`
						Title    string `json:"title"`
					} `json:"findings"`
				}
				_ = json.Unmarshal([]byte(tc.Arguments), &args)
				if args.Path != "" && !seenFile[args.Path] {
					seenFile[args.Path] = true
					files = append(files, args.Path)
				}
				for _, f := range args.Findings {
					findings = append(findings, fmt.Sprintf("[%s] %s:%d %s", f.Severity, f.Path, f.Line, text.OneLine(f.Title, 100)))
				}
				if args.Summary != "" {
					concluded = text.OneLine(args.Summary, 300)
				}
				call := tc.Name + " " + text.OneLine(tc.Arguments, 80)
				if ref := refs[tc.ID]; ref != "" {
					call += " → ref " + ref
				}
				tools = append(tools, call)
			}
		}
	}
	fmt.Fprintf(b, "\n- Turn %d asked: %s", turn, asked)
	if len(tools) > 0 {
		fmt.Fprintf(b, "\n  - tools: %s", strings.Join(tools, "; "))
	}
	if len(files) > 0 {
		fmt.Fprintf(b, "\n  - files read: %s", strings.Join(files, ", "))
	}
	if len(findings) > 0 {
		fmt.Fprintf(b, "\n  - findings: %s", strings.Join(findings, "; "))
	}
	if concluded != "" {
		fmt.Fprintf(b, "\n  - concluded: %s", concluded)
	}
}
