package main

import (
	"fmt"
	"strings"
)

// scenario is a fixed run of review against a scripted model. It builds
// its own repository and runs the binary; the requests of the runs it
// marks are compared.
type scenario struct {
	name, title string
	// needs is a flag both binaries must have, or the scenario is skipped.
	needs string
	run   func(e *env) error
}

var scenarios = []scenario{
	{name: "a", title: "small change, one unit, streamed", run: func(e *env) error {
		if err := smallChange(e); err != nil {
			return err
		}
		_, err := e.review(call{script: smallScript, args: []string{"--base", "main", "--model", "gpt-4o", "--format", "json"}, record: true})
		return err
	}},
	{name: "b", title: "12 files in 6 units at a 12k window, 3 side by side", needs: "jobs", run: func(e *env) error {
		if err := manyFiles(e); err != nil {
			return err
		}
		_, err := e.review(call{script: unitsScript(6, false), args: []string{"--base", "main", "--model", "gpt-4o", "--context-window", "12000", "--jobs", "3", "--format", "json"}, record: true, byUnit: true})
		return err
	}},
	{name: "c", title: "follow-up question on (a)'s run", run: func(e *env) error {
		if err := smallChange(e); err != nil {
			return err
		}
		out, err := e.review(call{script: smallScript, args: []string{"--base", "main", "--model", "gpt-4o", "--format", "json"}})
		if err != nil {
			return err
		}
		run, err := runID(out)
		if err != nil {
			return err
		}
		_, err = e.review(call{script: askScript("q1", "testdata/sample.kv", "Load does not close its file, and the sample's comments are skipped."), args: []string{"ask", run, "Does Load close the file it opens, and does it skip the sample's comments?", "--model", "gpt-4o"}, record: true})
		return err
	}},
	// Pruning decides by tokens against a line, and lands within a few
	// tokens of it. Refs hash the run ID, so two runs draw different ones;
	// a ref is twelve digits, which every BPE counts as four tokens
	// whatever they are, so the same binary prunes at the same turns and
	// sends the same bytes every time, counted exactly as a review is.
	{name: "d", title: "a review and six questions at a 6k window, history pruned", run: func(e *env) error {
		if err := tableChange(e); err != nil {
			return err
		}
		out, err := e.review(call{script: submitScript, args: []string{"--base", "main", "--model", "gpt-4o", "--context-window", "6000", "--format", "json"}, record: true})
		if err != nil {
			return err
		}
		run, err := runID(out)
		if err != nil {
			return err
		}
		questions := []string{"what is in data.txt?", "and its first lines?", "how does main use it?", "the last lines?", "anything odd?", "is it sorted?"}
		for i, q := range questions {
			id := fmt.Sprintf("q%d", i+1)
			script := askScript(id, "data.txt", fmt.Sprintf("Answer %d: about the table.", i+1))
			if _, err := e.review(call{script: script, args: []string{"ask", run, fmt.Sprintf("Question %d: %s", i+1, q), "--model", "gpt-4o"}, record: true}); err != nil {
				return err
			}
		}
		e.out.notePrunes()
		return nil
	}},
	{name: "e", title: "(a) with streaming off", needs: "stream", run: func(e *env) error {
		if err := smallChange(e); err != nil {
			return err
		}
		_, err := e.review(call{script: smallScript, args: []string{"--base", "main", "--model", "gpt-4o", "--stream=false", "--format", "json"}, record: true})
		return err
	}},
	{name: "f", title: "(b) with the units in sequence", needs: "jobs", run: func(e *env) error {
		if err := manyFiles(e); err != nil {
			return err
		}
		_, err := e.review(call{script: unitsScript(6, true), args: []string{"--base", "main", "--model", "gpt-4o", "--context-window", "12000", "--jobs", "1", "--format", "json"}, record: true})
		return err
	}},
}

// smallChange is a key=value store whose branch adds paging (off by one
// page) and makes Load skip comments (leaving its file open), with a
// sample file long enough that reading it gives a preview and a ref.
func smallChange(e *env) error {
	var sample strings.Builder
	for i := 1; i <= 150; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&sample, "# section %d\n", i/10)
		}
		fmt.Fprintf(&sample, "key%03d=value %d of the sample store\n", i, i)
	}
	if err := e.write(
		"testdata/sample.kv", sample.String(),
		"store.go", `// Package kv reads key=value files.
package kv

import (
	"os"
	"strings"
)

// Load reads the key=value lines of path.
func Load(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m, nil
}
`,
		"list.go", `package kv

import "sort"

// Keys are m's keys in order.
func Keys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FirstPage is what the listing shows first: page 1, 20 keys.
func FirstPage(m map[string]string) []string {
	return Page(Keys(m), 1, 20)
}
`,
		"page.go", `package kv

// Page is page n of items, size items a page.
func Page(items []string, n, size int) []string {
	return items
}
`); err != nil {
		return err
	}
	if err := e.commit("kv: load key=value files, list their keys"); err != nil {
		return err
	}
	if err := e.git("checkout", "-q", "-b", "paging"); err != nil {
		return err
	}
	if err := e.write(
		"store.go", `// Package kv reads key=value files.
package kv

import (
	"bufio"
	"os"
	"strings"
)

// Load reads the key=value lines of path, skipping comments.
func Load(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m, sc.Err()
}
`,
		"page.go", `package kv

// Page is page n of items, size items a page. Pages are numbered from 1.
func Page(items []string, n, size int) []string {
	start := n * size
	end := start + size
	if end > len(items) {
		end = len(items)
	}
	return items[start:end]
}
`); err != nil {
		return err
	}
	return e.commit("kv: page through keys; skip comments in Load")
}

// manyFiles is twelve new files of sixty functions each.
func manyFiles(e *env) error {
	if err := e.write("main.go", "package main\n\nfunc main() {}\n"); err != nil {
		return err
	}
	if err := e.commit("init"); err != nil {
		return err
	}
	if err := e.git("checkout", "-q", "-b", "feature"); err != nil {
		return err
	}
	for i := 1; i <= 12; i++ {
		f := fmt.Sprintf("file%02d", i)
		var b strings.Builder
		b.WriteString("package main\n")
		for j := 1; j <= 60; j++ {
			fmt.Fprintf(&b, "func %s_%d(x int) int { return x*%d + len(%q) }\n", f, j, j, f)
		}
		if err := e.write(f+".go", b.String()); err != nil {
			return err
		}
	}
	return e.commit("twelve files")
}

// tableChange is a 3,000-line file in the base and a change that reads it.
func tableChange(e *env) error {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "value %d is stored in this table, with a comment long enough to fill a line\n", i)
	}
	if err := e.write("data.txt", b.String(), "main.go", "package main\n\nfunc main() {}\n"); err != nil {
		return err
	}
	if err := e.commit("init"); err != nil {
		return err
	}
	if err := e.git("checkout", "-q", "-b", "feature"); err != nil {
		return err
	}
	if err := e.write("main.go", "package main\n\nimport \"os\"\n\nfunc main() { os.ReadFile(\"data.txt\") }\n"); err != nil {
		return err
	}
	return e.commit("main reads the table")
}

// forced answers a request that forces submit_review, as a model obeying
// tool_choice does.
const forced = `{"tool_calls": [{"id": "call_forced", "name": "submit_review", "arguments": {"summary": "Submitted when asked.", "findings": []}}]}`

// smallScript reads a hunk, pages its output by ref and submits a finding.
const smallScript = `{"steps": [
 {"content": "Load now skips comments; I read the sample store to see whether it has any.",
  "tool_calls": [{"id": "call_a1", "name": "read_file_hunk", "arguments": {"path": "testdata/sample.kv", "start_line": 1, "end_line": 165}}]},
 {"tool_calls": [{"id": "call_a2", "name": "read_tool_output", "arguments": {"ref": "$REF(call_a1)", "start_line": 98, "line_count": 4}}]},
 {"tool_calls": [{"id": "call_a3", "name": "submit_review", "arguments": {
  "summary": "Page skips the first page and panics past the end; Load leaks its file.",
  "findings": [
   {"path": "page.go", "line": 5, "end_line": null, "severity": "high", "category": "correctness",
    "title": "Page skips the first page: pages are numbered from 1 but start is n*size",
    "body": "FirstPage asks for page 1 and gets items 20..39.", "suggestion": "Start at (n-1)*size.", "replacement": "\tstart := (n - 1) * size"}]}}]}
 ],
 "forced": ` + forced + `,
 "fallback": {"content": "done"}}`

// submitScript submits at once.
const submitScript = `{"steps": [
 {"tool_calls": [{"id": "call_r1", "name": "submit_review", "arguments": {"summary": "Looks fine.", "findings": []}}]}
 ],
 "forced": ` + forced + `,
 "fallback": {"content": "done"}}`

// askScript answers a question after reading path whole.
func askScript(id, path, answer string) string {
	return fmt.Sprintf(`{"steps": [
 {"tool_calls": [{"id": "call_%s", "name": "read_file_hunk", "arguments": {"path": %q, "start_line": 1, "end_line": 3000}}]},
 {"content": %q}
 ],
 "forced": %s,
 "fallback": {"content": "done"}}`, id, path, answer, forced)
}

// unitsScript answers each of n units (two files each) with a diff of its
// first file, a page of it by ref and a finding in its second. Units side
// by side each start "This is unit 2 of 6;"; in sequence the first does,
// the next ones "Review unit 2 of 6:", after the earlier units' turns.
func unitsScript(n int, sequence bool) string {
	var steps []string
	for u := 1; u <= n; u++ {
		when := fmt.Sprintf("This is unit %d of %d;", u, n)
		if sequence && u > 1 {
			when = fmt.Sprintf("Review unit %d of %d:", u, n)
		}
		first, second := fmt.Sprintf("file%02d.go", 2*u-1), fmt.Sprintf("file%02d.go", 2*u)
		steps = append(steps,
			fmt.Sprintf(`{"when": %q, "tool_calls": [{"id": "call_u%d_1", "name": "get_file_diff", "arguments": {"path": %q}}]}`, when, u, first),
			fmt.Sprintf(`{"when": %q, "tool_calls": [{"id": "call_u%d_2", "name": "read_tool_output", "arguments": {"ref": "$REF(call_u%d_1)", "start_line": 10, "line_count": 5}}]}`, when, u, u),
			fmt.Sprintf(`{"when": %q, "tool_calls": [{"id": "call_u%d_3", "name": "submit_review", "arguments": {"summary": "Unit %d: %s and %s look fine but for one name.", "findings": [{"path": %q, "line": 3, "end_line": null, "severity": "low", "category": "maintainability", "title": "Unclear name in %s", "body": "The name says little.", "suggestion": null}]}}]}`, when, u, u, first, second, second, second),
		)
	}
	return `{"steps": [` + strings.Join(steps, ",\n") + `], "forced": ` + forced + `, "fallback": {"content": "done"}}`
}
