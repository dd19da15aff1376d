package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/toolmem"
)

// chromium is where Debian's chromium package puts the browser; .ci/run
// installs it when it is missing.
const chromium = "/usr/bin/chromium"

// TestReplayHTMLInBrowser opens the page of a scripted 6-step review in
// headless Chromium: the chart has a bar per request with the layer totals
// the run recorded, a step opens on its messages, search finds a needle
// that only a stored output holds, and the script and the onerror handler
// a diff, a model reply and a finding carry do not run. It writes a
// screenshot to $REVIEW_SCREENSHOT (a file) or to the test's temporary
// directory.
func TestReplayHTMLInBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is not installed (apt-get install -y chromium; .ci/run installs it): the page is not opened in a browser", chromium)
	}
	if testing.Short() {
		t.Skip("opens a browser")
	}
	dir, store, runID, url := scriptedRun(t)
	page := filepath.Join(dir, "replay.html")
	runReview(t, dir, "replay", runID, "--store", store, "--html", page)

	st, err := toolmem.Open(store, toolmem.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Load(st, runID)
	if err != nil {
		t.Fatal(err)
	}
	var want []record.StepFigures
	for _, s := range r.Steps {
		var f record.StepFigures
		if err := json.Unmarshal(s.Figures, &f); err != nil {
			t.Fatalf("step %d recorded no figures: %v", s.N, err)
		}
		want = append(want, f)
	}
	st.Close()
	if len(want) != 6 {
		t.Fatalf("the run has %d steps, want 6", len(want))
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		thrown []string
	)
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*cdpruntime.EventExceptionThrown); ok {
			mu.Lock()
			thrown = append(thrown, e.ExceptionDetails.Error())
			mu.Unlock()
		}
	})

	type bar struct {
		Step   int            `json:"step"`
		Total  int            `json:"total"`
		Layers map[string]int `json:"layers"`
	}
	type span struct {
		Step, Unit int
		At, Took   int64
	}
	var (
		spans  []span
		bars   []bar
		msgs   int
		shown  string
		hits   []string
		pwned  bool
		title  string
		text   string
		screen []byte
		evid   []string
		egress int
	)
	err = chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitReady(`body[data-ready="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#chart .bar')).map(b => ({
			step: +b.dataset.step, total: +b.dataset.total,
			layers: Object.fromEntries(Array.from(b.querySelectorAll('rect[data-layer]')).map(r => [r.dataset.layer, +r.dataset.tokens]))}))`, &bars),
		// A step is closed until opened; then its messages are there.
		chromedp.Evaluate(`document.querySelectorAll('#step-2 details.msg').length`, &msgs),
		// The finding shows, as text, the lines the model was shown of it;
		// the egress table has the server it talked to.
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#findings pre.evidence')).map(p => p.textContent)`, &evid),
		chromedp.Evaluate(`document.querySelectorAll('#egress tr').length`, &egress),
		// The timeline has a bar per request, each after the one before
		// in a run made in sequence, on one lane.
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#timeline rect.span')).map(r => ({
			step: +r.dataset.step, unit: +r.dataset.unit, at: +r.dataset.at, took: +r.dataset.took}))`, &spans),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 6 {
		t.Errorf("the timeline has %d bars, want 6", len(spans))
	}
	for i, sp := range spans {
		if sp.Unit != 0 || sp.Took < 0 || (i > 0 && sp.At < spans[i-1].At+spans[i-1].Took) {
			t.Errorf("timeline bar %d: %+v after %+v", i+1, sp, spans[max(i-1, 0)])
		}
	}
	if msgs != 0 {
		t.Errorf("step 2 shows %d messages before it is opened", msgs)
	}
	if len(evid) != 1 || !strings.Contains(evid[0], "<script>window.__pwned=1") {
		t.Errorf("the finding shows as its evidence %q, want line 1 of evil.html as text", evid)
	}
	if egress < 2 {
		t.Errorf("the egress table has %d rows, want a header and the scripted server", egress)
	}
	if len(bars) != len(want) {
		t.Fatalf("the chart has %d bars; the run made %d requests", len(bars), len(want))
	}
	for i, b := range bars {
		w := want[i]
		l := w.Layers
		exp := map[string]int{"system": l.System, "tools": l.Tools, "diff": l.Diff, "summary": l.Summary, "window": l.Window,
			"loop": l.Loop - l.Previews, "previews": l.Previews, "other": l.Other}
		sum := 0
		for k, v := range exp {
			if b.Layers[k] != v {
				t.Errorf("bar %d, layer %s: %d tokens; the run recorded %d", i+1, k, b.Layers[k], v)
			}
			sum += b.Layers[k]
		}
		if b.Step != r.Steps[i].N || b.Total != w.Tokens || sum != w.Tokens {
			t.Errorf("bar %d: step %d, total %d, layers adding up to %d; the run recorded step %d with %d tokens", i+1, b.Step, b.Total, sum, r.Steps[i].N, w.Tokens)
		}
	}
	err = chromedp.Run(ctx,
		chromedp.Click(`#step-2 > summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`#step-2 details.msg`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#step-2 details.msg').length`, &msgs),
		chromedp.Click(`#step-2 details.msg[data-index="2"] > summary`, chromedp.ByQuery),
		chromedp.Text(`#step-2 details.msg[data-index="2"] pre.content`, &shown, chromedp.ByQuery),
		chromedp.SendKeys(`#search`, "needle-zebra", chromedp.ByQuery),
		chromedp.WaitVisible(`#results li[data-kind="output"]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#results li')).map(li => li.dataset.kind + ' ' + li.textContent)`, &hits),
		// Every step drawn, so every hostile text is on the page.
		chromedp.Click(`#expand-all`, chromedp.ByQuery),
		chromedp.Click(`#results li[data-kind="output"] a`, chromedp.ByQuery),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`window.__pwned !== undefined`, &pwned),
		chromedp.Title(&title),
		chromedp.Evaluate(`document.body.textContent`, &text),
		// The screenshot: the run, its efficiency, its chart and step 3.
		chromedp.Click(`#collapse-all`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('search').value = ''; document.getElementById('results').textContent = ''; document.getElementById('search-count').textContent = ''`, nil),
		chromedp.Click(`#step-3 > summary`, chromedp.ByQuery),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
		chromedp.FullScreenshot(&screen, 100), // 100: PNG
	)
	if err != nil {
		t.Fatal(err)
	}
	req, err := wire.DecodeRequest(r.Steps[1].Request)
	if err != nil {
		t.Fatal(err)
	}
	if msgs != len(req.Messages) {
		t.Errorf("step 2 shows %d messages once opened; its request had %d", msgs, len(req.Messages))
	}
	if !strings.Contains(shown, "<img src=x onerror=") {
		t.Errorf("message 2 of step 2, the diff context, shows %q", shown)
	}
	found := false
	for _, h := range hits {
		if strings.HasPrefix(h, "output ") && strings.Contains(h, "needle-zebra-4711") {
			found = true
		}
	}
	if !found {
		t.Errorf("search for a needle of a stored output found %q", hits)
	}
	if pwned || title != "review replay "+runID {
		t.Errorf("recorded text ran as script: window.__pwned set %v, title %q", pwned, title)
	}
	for _, s := range []string{"<script>window.__pwned=1", `<img src=x onerror="window.__pwned=2`, "finding </script><script>window.__pwned=3</script>", "window.__pwned=5"} {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	// A follow-up question prunes the review's turn to fit a small
	// history: its request is a seventh bar, marked.
	runReview(t, dir, "ask", runID, "why?", "--store", store, "--base-url", url, "--history-chars", "300")
	runReview(t, dir, "replay", runID, "--store", store, "--html", page)
	var nbars, prunes int
	var pruned []int
	err = chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitReady(`body[data-ready="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#chart .bar').length`, &nbars),
		chromedp.Evaluate(`document.querySelectorAll('#chart .prune').length`, &prunes),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#chart .prune')).map(p => +p.dataset.step)`, &pruned),
	)
	if err != nil {
		t.Fatal(err)
	}
	if nbars != 7 || prunes != 1 || len(pruned) != 1 || pruned[0] != 7 {
		t.Errorf("after a follow-up: %d bars, prune marks on steps %v; want 7 bars and a mark on step 7", nbars, pruned)
	}
	mu.Lock()
	if len(thrown) > 0 {
		t.Errorf("the page's script failed: %q", thrown)
	}
	mu.Unlock()
	out := os.Getenv("REVIEW_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "replay.png")
	}
	if err := os.WriteFile(out, screen, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(screen))
}

// scriptedRun makes a 6-step review of a repository whose change holds
// hostile HTML, against a scripted model whose replies hold more, and
// returns the repository, the store, the run ID and the model's URL, which
// has one more reply, for a follow-up question.
func scriptedRun(t testing.TB) (dir, store, runID, url string) {
	t.Helper()
	return scriptedReview(t, sixSteps)
}

// sixSteps is the script of scriptedRun.
const sixSteps = `[
	  {"tool_calls": [{"id": "c1", "name": "list_project_files", "arguments": {}}]},
	  {"tool_calls": [{"id": "c2", "name": "read_file_hunk", "arguments": {"path": "big.txt", "start_line": 1, "end_line": 400}}]},
	  {"tool_calls": [{"id": "c3", "name": "read_tool_output", "arguments": {"ref": "$REF(c2)", "start_line": 1, "line_count": 5}}]},
	  {"tool_calls": [{"id": "c4", "name": "search_in_project", "arguments": {"pattern": "line"}}]},
	  {"content": "Looking at <b>evil.html</b> <script>window.__pwned=5</script>", "tool_calls": [{"id": "c5", "name": "read_file_hunk", "arguments": {"path": "evil.html", "start_line": 1, "end_line": 2}}]},
	  {"tool_calls": [{"id": "c6", "name": "submit_review", "arguments": {"summary": "Done <script>window.__pwned=6</script>", "findings": [
	    {"path": "evil.html", "line": 1, "end_line": null, "severity": "high", "category": "security", "title": "finding </script><script>window.__pwned=3</script>", "body": "<img src=x onerror=\"window.__pwned=4;document.title='pwned'\">", "suggestion": null}]}}]},
	  {"content": "For a follow-up question: because."}
	]`

// scriptedReview reviews that repository against script, with up to 60
// steps.
func scriptedReview(t testing.TB, script string) (dir, store, runID, url string) {
	t.Helper()
	store = filepath.Join(t.TempDir(), "store")
	var big strings.Builder
	for i := 1; i <= 400; i++ {
		if i == 200 {
			big.WriteString("line 200 holds needle-zebra-4711 only in the stored output\n")
			continue
		}
		big.WriteString("line of the big file, long enough to take some room in a preview\n")
	}
	dir = gittest.Change(t, map[string]string{"README": "base\n"}, map[string]string{
		"evil.html": "<script>window.__pwned=1;document.title='pwned'</script>\n<img src=x onerror=\"window.__pwned=2;document.title='pwned'\">\n",
		"big.txt":   big.String(),
	})

	srv := reviewtest.Serve(t, script)
	out := runReview(t, dir, "--base", "main", "--store", store, "--format", "json", "--base-url", srv.URL, "--max-steps", "60")
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.RunID == "" {
		t.Fatalf("review printed %s: %v", out, err)
	}
	return dir, store, res.RunID, srv.URL
}

// runReview runs the review binary in dir and returns its standard output.
func runReview(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	home := t.TempDir()
	c := exec.Command(reviewBinary(t), args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"OPENAI_API_KEY=sk-test-0123456789abcdef", "CI=", "GITHUB_ACTIONS=", "REVIEW_MODEL=", "REVIEW_STORE=", "OPENAI_BASE_URL=")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("review %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// BenchmarkReplayHTML50 writes the page of a 50-step review: 49 reads of
// a 400-line file (27 KB each, stored and shown whole), then the review.
// It reports the page's size; run it with
// go test -run '^$' -bench ReplayHTML50 -benchtime 10x ./internal/e2e
func BenchmarkReplayHTML50(b *testing.B) {
	var script strings.Builder
	script.WriteString(`[{"repeat": 49, "tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "big.txt", "start_line": 1, "end_line": 400}}]},`)
	script.WriteString(`{"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}]`)
	_, store, runID, _ := scriptedReview(b, script.String())
	st, err := toolmem.Open(store, toolmem.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var size int
	b.ResetTimer()
	for b.Loop() {
		r, err := record.Load(st, runID)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Steps) != 50 {
			b.Fatalf("%d steps, want 50", len(r.Steps))
		}
		c, err := record.RunCounter(r.Run)
		if err != nil {
			b.Fatal(err)
		}
		outs, err := record.Outputs(st, runID, report.HTMLInline, report.HTMLWhole, report.HTMLWholeTotal)
		if err != nil {
			b.Fatal(err)
		}
		var page bytes.Buffer
		if err := report.WriteHTML(&page, report.HTMLReplay{Replay: r, Figures: record.Figures(st, r, c), Outputs: outs, Counter: c}); err != nil {
			b.Fatal(err)
		}
		size = page.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}
