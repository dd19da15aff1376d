package bench

import (
	"fmt"
	"html/template"
	"io"
)

// WriteHTML writes the scorecard as one self-contained page: the totals, a
// precision and recall chart by severity, and each case's findings beside
// its expected issues, with the command that replays each run. replays,
// if set, is the folder (relative to the page) holding each run's replay
// page as RUN.html, which each run links to.
func WriteHTML(w io.Writer, s *Scorecard, replays string) error {
	return page.Execute(w, struct {
		*Scorecard
		Replays string
	}{s, replays})
}

var page = template.Must(template.New("bench").Funcs(template.FuncMap{
	"rate": rate,
	"usd":  usd,
	"pct": func(p *float64) string {
		if p == nil {
			return "0"
		}
		return fmt.Sprintf("%.0f", *p*100)
	},
	"sevs": func(t Total) []string {
		keys := map[string]bool{}
		for k := range t.RecallBySeverity {
			keys[k] = true
		}
		for k := range t.PrecisionBySeverity {
			keys[k] = true
		}
		return severityOrder(keys)
	},
	"recallOf": func(t Total, k string) *float64 {
		if r := t.RecallBySeverity[k]; r != nil {
			return r.Recall
		}
		return nil
	},
	"precisionOf": func(t Total, k string) *float64 {
		if p := t.PrecisionBySeverity[k]; p != nil {
			return p.Precision
		}
		return nil
	},
	"matched": func(r RunScore, e int) bool {
		for _, f := range r.Findings {
			if f.Match == e {
				return true
			}
		}
		return false
	},
	"note": caseNote,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>review bench: {{.Meta.Corpus}} · {{.Meta.Model}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}
.bar{display:inline-block;height:.8em;background:#4a7}.bar.r{background:#47a}
.tp{color:#185}.fp{color:#a33}.fn{color:#a60}code{font-size:90%}
details{margin:.5em 0;border-left:3px solid #ddd;padding-left:.8em}
.cols{display:flex;gap:2em}.cols>div{flex:1}
</style></head><body>
<h1>review bench: {{.Meta.Corpus}}</h1>
<p>model <b>{{.Meta.Model}}</b> at {{.Meta.BaseURL}} · slack {{.Meta.Slack}} · repeat {{.Meta.Repeat}}{{with .Meta.Shard}} · shard {{.}}{{end}} · review {{.Meta.Version}} · {{.Meta.Started}}{{with .Meta.Stopped}} · <b>stopped: {{.}}</b>{{end}}</p>
{{with .Total}}
<table>
<tr><th>cases</th><th>tp</th><th>fp</th><th>fn</th><th>precision</th><th>recall</th><th>f1</th><th>clean cases</th><th>clean fp</th><th>unplaced</th><th>failures</th><th>requests</th><th>prompt tokens</th><th>completion tokens</th><th>cost</th><th>wall</th></tr>
<tr><td>{{.Cases}}</td><td>{{.TP}}</td><td>{{.FP}}</td><td>{{.FN}}</td><td>{{rate .Precision}}</td><td>{{rate .Recall}}</td><td>{{rate .F1}}</td><td>{{.CleanCases}}</td><td>{{.CleanFP}}</td><td>{{.Unplaced}}</td><td>{{.Failures}}</td><td>{{.Requests}}</td><td>{{.PromptTokens}}</td><td>{{.CompletionTokens}}</td><td>{{usd .CostUSD}}</td><td>{{printf "%.1fs" .WallS}}</td></tr>
</table>
{{if .Judged}}<p>described correctly (the judge, apart from the score): {{.Described}} of {{.Judged}} matched findings ({{rate .DescribedRate}})</p>{{end}}
<h2>By severity</h2>
<table><tr><th>severity</th><th>precision</th><th></th><th>recall</th><th></th></tr>
{{$t := .}}{{range sevs .}}<tr><td>{{.}}</td><td>{{rate (precisionOf $t .)}}</td><td style="text-align:left;width:12em"><span class="bar" style="width:{{pct (precisionOf $t .)}}%"></span></td><td>{{rate (recallOf $t .)}}</td><td style="text-align:left;width:12em"><span class="bar r" style="width:{{pct (recallOf $t .)}}%"></span></td></tr>
{{end}}</table>
{{end}}
<h2>Cases</h2>
{{range .Cases}}{{$c := .}}
<details{{if or .FN .FP .Failures}} open{{end}}><summary><b>{{.ID}}</b>{{if .Clean}} (clean){{end}} · tp {{.TP}} fp {{.FP}} fn {{.FN}} · {{usd .CostUSD}}{{with note .}} · {{.}}{{end}}{{with .Description}} — {{.}}{{end}}</summary>
<p>{{.Repo}}{{with .RevertOf}} · revert of {{.}}{{end}}{{with .Base}} · {{.}}..{{$c.Head}}{{end}}</p>
{{range $i, $r := .Runs}}
<p>run {{if and $.Replays $r.RunID}}<a href="{{$.Replays}}/{{$r.RunID}}.html"><code>{{$r.RunID}}</code></a>{{else}}<code>{{$r.RunID}}</code>{{end}}: replay with <code>review replay {{$r.RunID}} --store {{$c.Store}}</code>{{with $r.Failure}} · <b>failed ({{.Kind}})</b>: {{.Error}}{{end}}</p>
<div class="cols"><div><h4>expected{{if $c.Derived}} (the revert's lines){{end}}</h4><ul>
{{range $e, $x := $c.Expected}}<li class="{{if matched $r $e}}tp{{else}}fn{{end}}">{{$x.Path}}:{{$x.StartLine}}-{{$x.EndLine}} {{$x.Severity}} {{$x.Description}}</li>{{end}}
</ul></div><div><h4>findings</h4><ul>
{{range $r.Findings}}<li class="{{if ge .Match 0}}tp{{else}}fp{{end}}">{{.Path}}:{{.Line}}{{if .EndLine}}-{{.EndLine}}{{end}} {{.Severity}} {{.Title}}{{with .Described}}{{if .}} · described correctly{{else}} · not the defect, says the judge{{end}}{{end}}</li>{{else}}<li>none</li>{{end}}
</ul></div></div>
{{end}}
{{with .Error}}<p><b>not built:</b> {{.}}</p>{{end}}
</details>
{{end}}
</body></html>
`))
