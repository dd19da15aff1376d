package review

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
)

// Verification (--verify) is one more request per unit, made once the
// unit submits: it carries only the unit's findings, each with the lines
// of its evidence as tool memory and the diff hold them (not the unit's
// history), and asks for keep or reject with a reason, per finding. The
// rejected findings are dropped with the reason; a verification that
// fails or answers nothing usable keeps every finding as it was.

// verifyTool is the tool the verification request forces.
const verifyTool = "submit_verdicts"

// verifyPrompt is the system message of a verification request.
const verifyPrompt = `You check the findings of a code review before they are posted on a pull request, where every false alarm costs a maintainer's time. For each finding below you get what it claims and the lines of code it cites, exactly as the reviewer was shown them; a finding whose lines the reviewer was never shown says so.

Keep a finding only if the lines shown support it: the defect is really there, as described, and it matters. Reject it if the lines contradict it, do not show what it claims, or it is a matter of taste. Judge each finding on its own. Call ` + verifyTool + ` once with a verdict for every finding, by its number.`

// verifyExpectedTokens is about what a verification request takes, for
// the plan: the prompt, a few findings and their lines.
const verifyExpectedTokens = 1500

// verifyAnswerTokens bounds the verdicts' answer.
const verifyAnswerTokens = 1200

// verifyDefinition is the definition of verifyTool.
var verifyDefinition = tools.Definition{
	Name:        verifyTool,
	Description: "Give a verdict for every finding: keep or reject, with the reason.",
	Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "verdicts": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "finding": {"type": "integer", "description": "The finding's number."},
          "keep": {"type": "boolean"},
          "reason": {"type": "string", "description": "Why, in one sentence."}
        },
        "required": ["finding", "keep", "reason"],
        "additionalProperties": false
      }
    }
  },
  "required": ["verdicts"],
  "additionalProperties": false
}`),
	Strict: true,
}

// verdict is one finding's verdict.
type verdict struct {
	Finding int    `json:"finding"`
	Keep    bool   `json:"keep"`
	Reason  string `json:"reason"`
}

// rejections are the findings verification dropped, for the run's result:
// one list shared by the units, copies of the main session.
type rejections struct {
	mu      sync.Mutex
	dropped []result.Dropped
}

func (r *rejections) add(d ...result.Dropped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped = append(r.dropped, d...)
}

func (r *rejections) all() []result.Dropped {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]result.Dropped(nil), r.dropped...)
}

// verify checks sub's findings with one request and drops those rejected.
// Only a cancelled or timed-out run is an error: a verification that
// fails otherwise (refused by a cap, an answer without verdicts) leaves
// the findings as they were.
func (s *Session) verify(ctx context.Context, sub *submission) error {
	if len(sub.Findings) == 0 {
		return nil
	}
	ask := s.verifyRequest(sub.Findings)
	if red := s.redact(); red != nil {
		// The lines come from the redacted diff and store; the
		// findings' words pass the filter like every text sent.
		ask, _ = red.Redact(ask)
	}
	msgs := []conversation.Message{
		{ID: "verify-system", Role: conversation.System, Content: verifyPrompt, Layer: conversation.Summary},
		{ID: "verify-user", Role: conversation.User, Content: ask, Layer: conversation.Summary},
	}
	req := llm.Request{Model: s.Model, Tools: []tools.Definition{verifyDefinition}, ToolChoice: verifyTool, Temperature: s.Temperature, MaxTokens: verifyAnswerTokens}
	reply, err := s.record(ctx, req, s.History.Turns(), msgs)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// Refused by a cap, or failed: the findings stand unverified.
		return nil
	}
	vs, ok := parseVerdicts(reply)
	if !ok {
		return nil
	}
	var kept []result.Finding
	var gone []result.Dropped
	for i, f := range sub.Findings {
		v, ok := vs[i+1]
		if !ok || v.Keep {
			kept = append(kept, f)
			continue
		}
		reason := text.OneLine(strings.TrimSpace(v.Reason), 300)
		if reason == "" {
			reason = "no reason given"
		}
		gone = append(gone, result.Dropped{Finding: f, Reason: "rejected by verification: " + reason})
	}
	if kept == nil {
		kept = []result.Finding{}
	}
	sub.Findings = kept
	s.rejected.add(gone...)
	return nil
}

// parseVerdicts reads the verdicts of a reply: the call of verifyTool, or
// a server that ignored the forced call, the same JSON as its text.
func parseVerdicts(reply *llm.Reply) (map[int]verdict, bool) {
	var raw string
	for _, c := range reply.Message.ToolCalls {
		if c.Name == verifyTool {
			raw = c.Arguments
			break
		}
	}
	if raw == "" {
		raw = strings.TrimSpace(reply.Message.Content)
		if i, j := strings.Index(raw, "{"), strings.LastIndex(raw, "}"); i >= 0 && j > i {
			raw = raw[i : j+1]
		}
	}
	var args struct {
		Verdicts []verdict `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil || len(args.Verdicts) == 0 {
		return nil, false
	}
	out := make(map[int]verdict, len(args.Verdicts))
	for _, v := range args.Verdicts {
		out[v.Finding] = v
	}
	return out, true
}

// maxEvidenceLines bounds the lines shown for one finding.
const maxEvidenceLines = 60

// verifyRequest lists the findings, each with the lines of its evidence.
func (s *Session) verifyRequest(fs []result.Finding) string {
	var b strings.Builder
	outs := map[string]*outputLines{}
	for i, f := range fs {
		fmt.Fprintf(&b, "## Finding %d: [%s] %s\n\n", i+1, f.Severity, text.OneLine(f.Title, 300))
		fmt.Fprintf(&b, "Location: %s · %s\n\n", f.Location(), f.RuleID())
		if f.Body != "" {
			b.WriteString(f.Body + "\n\n")
		}
		if len(f.Evidence) == 0 {
			b.WriteString("The reviewer was never shown the lines this finding cites.\n\n")
			continue
		}
		if !f.Grounded {
			b.WriteString("The reviewer was shown only some of the lines this finding cites:\n\n")
		} else {
			b.WriteString("The lines it cites, as the reviewer was shown them:\n\n")
		}
		shown := 0
		for _, e := range f.Evidence {
			lines := s.evidenceText(e, outs)
			if shown+len(lines) > maxEvidenceLines {
				lines = lines[:max(maxEvidenceLines-shown, 0)]
			}
			shown += len(lines)
			fence := text.CodeFence(strings.Join(lines, "\n"))
			fmt.Fprintf(&b, "%s (%s):\n%s\n%s\n%s\n\n", e.Lines(), evidenceSource(e), fence, strings.Join(lines, "\n"), fence)
		}
	}
	return b.String()
}

// evidenceSource names where evidence came from, for the verifier.
func evidenceSource(e result.Evidence) string {
	if e.Source == result.SourceDiff {
		return "the diff"
	}
	return e.Tool + " output " + e.Source
}

// evidenceText is the lines of e, numbered, read from the diff or from
// the tool output stored under its ref.
func (s *Session) evidenceText(e result.Evidence, outs map[string]*outputLines) []string {
	var lines []string
	if e.Source == result.SourceDiff {
		f := s.Diff.File(e.Path)
		if f == nil {
			return nil
		}
		for _, h := range f.Hunks {
			n := h.NewStart
			for _, l := range strings.Split(strings.TrimSuffix(h.Body, "\n"), "\n") {
				if l == "" || l[0] == '-' || l[0] == '\\' {
					continue
				}
				if n >= e.StartLine && n <= e.EndLine {
					lines = append(lines, strconv.Itoa(n)+": "+strings.TrimSuffix(l[1:], "\r"))
				}
				n++
			}
		}
		return lines
	}
	o, ok := outs[e.Source]
	if !ok {
		o = s.outputLines(e.Source)
		outs[e.Source] = o
	}
	if o == nil {
		return nil
	}
	for i, loc := range o.locs {
		if loc.path == e.Path && loc.line >= e.StartLine && loc.line <= e.EndLine {
			lines = append(lines, o.lines[i])
		}
	}
	return lines
}

// planVerify adds the verification requests to the plan's bounds, one a
// unit, and to its expectation (expect), so that the guard lets them
// through and the dry run states them.
func (p *Plan) planVerify() {
	p.verify = true
	n := p.Estimate.Units
	p.Estimate.MaxRequests += n
	if p.guard != nil {
		p.guard.maxRequests += n
	}
	p.expect(p.guard.firsts)
}
