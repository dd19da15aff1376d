package bench

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"net/url"
)

// WriteHTML writes the scorecard as one self-contained page: the totals, a
// precision and recall chart by severity, and each case's findings beside
// its expected issues, with the command that replays each run. replays,
// if set, is the folder (relative to the page) holding each run's replay
// page as RUN.html, which each run links to.
//
// The page is written by hand, every text escaped where it is written,
// rather than with html/template: text/template's reflection makes the
// linker keep every exported method of every type in the binary
// (TestBinary).
func WriteHTML(w io.Writer, s *Scorecard, replays string) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := html.EscapeString
	m := &s.Meta
	p("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	p("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	p("<title>review bench: %s · %s</title>\n<style>%s</style></head><body>\n", e(m.Corpus), e(m.Model), pageCSS)
	p("<h1>review bench: %s</h1>\n", e(m.Corpus))
	p("<p>model <b>%s</b> at %s · slack %d · repeat %d", e(m.Model), e(m.BaseURL), m.Slack, m.Repeat)
	if m.Shard != "" {
		p(" · shard %s", e(m.Shard))
	}
	p(" · review %s · %s", e(m.Version), e(m.Started))
	if m.Stopped != "" {
		p(" · <b>stopped: %s</b>", e(m.Stopped))
	}
	p("</p>\n")

	t := &s.Total
	p("<table>\n<tr><th>cases</th><th>tp</th><th>fp</th><th>fn</th><th>precision</th><th>recall</th><th>f1</th><th>clean cases</th><th>clean fp</th><th>unplaced</th><th>failures</th><th>requests</th><th>prompt tokens</th><th>completion tokens</th><th>cost</th><th>wall</th></tr>\n")
	p("<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td></tr>\n</table>\n",
		t.Cases, t.TP, t.FP, t.FN, rate(t.Precision), rate(t.Recall), rate(t.F1), t.CleanCases, t.CleanFP, t.Unplaced, t.Failures,
		t.Requests, t.PromptTokens, t.CompletionTokens, usd(t.CostUSD), seconds(t.WallS))
	if t.Judged > 0 {
		p("<p>described correctly (the judge, apart from the score): %d of %d matched findings (%s)</p>\n", t.Described, t.Judged, rate(t.DescribedRate))
	}
	if r := t.Repeat; r != nil {
		p("<p>over %d repeats: precision %s, recall %s, f1 %s</p>\n", r.N, e(spreadText(r.Precision)), e(spreadText(r.Recall)), e(spreadText(r.F1)))
	}

	writeSeverities(b, t)
	for i := range s.Cases {
		writeCase(b, &s.Cases[i], replays)
	}
	p("</body></html>\n")
	return b.Flush()
}

// writeSeverities writes the precision and recall of each severity, with
// their bars, and the heading of the cases.
func writeSeverities(b *bufio.Writer, t *Total) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := html.EscapeString
	p("<h2>By severity</h2>\n<table><tr><th>severity</th><th>precision</th><th></th><th>recall</th><th></th></tr>\n")
	for _, k := range severityOrder(keysOf(t.RecallBySeverity, t.PrecisionBySeverity)) {
		pr, rc := precisionOf(t.PrecisionBySeverity[k]), recallOf(t.RecallBySeverity[k])
		p("<tr><td>%s</td><td>%s</td><td class=\"chart\"><span class=\"bar\" style=\"width:%s%%\"></span></td><td>%s</td><td class=\"chart\"><span class=\"bar r\" style=\"width:%s%%\"></span></td></tr>\n",
			e(k), rate(pr), pct(pr), rate(rc), pct(rc))
	}
	p("</table>\n<h2>Cases</h2>\n")
}

// writeCase writes one case: its runs, each with the expected issues
// beside the findings, linked to the run's replay page under replays.
func writeCase(b *bufio.Writer, c *CaseScore, replays string) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := html.EscapeString
	open := ""
	if c.FN > 0 || c.FP > 0 || c.Failures > 0 {
		open = " open"
	}
	p("<details%s><summary><b>%s</b>", open, e(c.ID))
	if c.Clean {
		p(" (clean)")
	}
	p(" · tp %d fp %d fn %d · %s", c.TP, c.FP, c.FN, usd(c.CostUSD))
	if n := caseNote(c); n != "" {
		p(" · %s", e(n))
	}
	if c.Description != "" {
		p(" — %s", e(c.Description))
	}
	p("</summary>\n<p>%s", e(c.Repo))
	if c.RevertOf != "" {
		p(" · revert of %s", e(c.RevertOf))
	}
	if c.Base != "" {
		p(" · %s..%s", e(c.Base), e(c.Head))
	}
	p("</p>\n")
	for _, r := range c.Runs {
		writeRun(b, c, r, replays)
	}
	if c.Error != "" {
		p("<p><b>not built:</b> %s</p>\n", e(c.Error))
	}
	p("</details>\n")
}

// writeRun writes one run of a case: its replay, and the expected issues
// beside the findings.
func writeRun(b *bufio.Writer, c *CaseScore, r RunScore, replays string) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := html.EscapeString
	p("<p>run ")
	if replays != "" && r.RunID != "" {
		p("<a href=\"%s/%s.html\"><code>%s</code></a>", e(replays), e(url.PathEscape(r.RunID)), e(r.RunID))
	} else {
		p("<code>%s</code>", e(r.RunID))
	}
	if r.RunID != "" && c.Store != "" {
		p(": replay with <code>review replay %s --store %s</code>", e(r.RunID), e(c.Store))
	}
	if f := r.Failure; f != nil {
		p(" · <b>failed (%s)</b>: %s", e(f.Kind), e(f.Error))
	}
	p("</p>\n<div class=\"cols\"><div><h4>expected")
	if c.Derived {
		p(" (the revert's lines)")
	}
	p("</h4><ul>\n")
	for j, x := range c.Expected {
		class := "fn"
		if matched(r, j) {
			class = "tp"
		}
		p("<li class=\"%s\">%s:%d-%d %s %s</li>\n", class, e(x.Path), x.StartLine, x.EndLine, e(string(x.Severity)), e(x.Description))
	}
	p("</ul></div><div><h4>findings</h4><ul>\n")
	if len(r.Findings) == 0 {
		p("<li>none</li>\n")
	}
	for _, f := range r.Findings {
		class := "fp"
		if f.Match >= 0 {
			class = "tp"
		}
		p("<li class=\"%s\">%s:%d", class, e(f.Path), f.Line)
		if f.EndLine > 0 {
			p("-%d", f.EndLine)
		}
		p(" %s %s", e(string(f.Severity)), e(f.Title))
		if d := f.Described; d != nil && *d {
			p(" · described correctly")
		} else if d != nil {
			p(" · not the defect, says the judge")
		}
		p("</li>\n")
	}
	p("</ul></div></div>\n")
}

const pageCSS = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}td.chart{text-align:left;width:12em}
.bar{display:inline-block;height:.8em;background:#4a7}.bar.r{background:#47a}
.tp{color:#185}.fp{color:#a33}.fn{color:#a60}code{font-size:90%}
details{margin:.5em 0;border-left:3px solid #ddd;padding-left:.8em}
.cols{display:flex;gap:2em}.cols>div{flex:1}`

// pct is a rate as a whole percentage for a bar's width; 0 when unknown.
func pct(p *float64) string {
	if p == nil {
		return "0"
	}
	return fmt.Sprintf("%.0f", *p*100)
}

// matched reports whether a finding of r found expected issue e.
func matched(r RunScore, e int) bool {
	for _, f := range r.Findings {
		if f.Match == e {
			return true
		}
	}
	return false
}
