package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Row is one setting as `review config` shows it.
type Row struct {
	Key    string
	Value  any    // for JSON
	Text   string // for the table
	Source string // "flag --model", "env REVIEW_MODEL", "<file>:<line>" or "default"
}

// Rows are the settings in the order of Keys; as JSON they are one object.
type Rows []Row

// Rows lists every setting as `review config` shows it, in the order of
// Keys.
func (e *Effective) Rows() Rows {
	rows := make(Rows, 0, len(keys))
	for _, k := range keys {
		v := e.values[k.Name]
		r := Row{Key: k.Name, Value: v.v, Source: v.src}
		r.Value, r.Text = shown(v.v)
		e.byKey(&r, k.Name, v)
		rows = append(rows, r)
	}
	return rows
}

// shown is how a value of any kind is shown: in JSON (value) and in the
// table (text).
func shown(v any) (value any, text string) {
	r := Row{Value: v}
	switch x := v.(type) {
	case string:
		r.Text = x
	case int:
		r.Text = strconv.Itoa(x)
	case float64:
		r.Text = strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		r.Text = strconv.FormatBool(x)
	case FailOn:
		r.Value, r.Text = x.String(), x.String()
	case result.Severity:
		r.Value, r.Text = string(x), string(x)
		if x == "" {
			r.Value, r.Text = "none", "none"
		}
	case []string:
		if x == nil {
			r.Value = []string{}
		}
		r.Text = strings.Join(x, ", ")
	case map[string]result.Severity:
		if x == nil {
			r.Value = map[string]result.Severity{}
		}
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, c+"="+string(x[c]))
		}
		r.Text = strings.Join(parts, ", ")
	case llm.Price:
		r.Text = formatPrice(x, "")
	case map[string]string:
		// Header values that are credentials are never shown.
		shown := map[string]string{}
		var parts []string
		for _, h := range slices.Sorted(maps.Keys(x)) {
			val := x[h]
			if llm.CredentialHeader(h) {
				val = "[redacted]"
			}
			shown[h] = val
			parts = append(parts, h+": "+val)
		}
		r.Value, r.Text = shown, strings.Join(parts, ", ")
	case map[string]any:
		if x == nil {
			r.Value = map[string]any{}
		}
		if len(x) > 0 {
			b, _ := json.Marshal(x)
			r.Text = string(b)
		}
	case time.Duration:
		r.Value, r.Text = x.String(), x.String()
		if x == 0 {
			r.Value, r.Text = "none", "none"
		}
	}
	return r.Value, r.Text
}

// byKey adjusts the row of the key name to what that key means: a URL
// without its credentials, the default store and price, the first line of
// the instructions, "no limit".
func (e *Effective) byKey(r *Row, name string, v value) {
	switch name {
	case "base_url":
		// A gateway's credentials travel in the URL; the table shows
		// where requests go, never what opens it.
		if r.Text != "" {
			r.Text = llm.DisplayURL(r.Text)
			r.Value = r.Text
		}
	case "store":
		if r.Text == "" {
			// The store's default lies in the repository's git
			// directory; outside a repository there is none.
			r.Value = nil
			if d, err := toolmem.DefaultDir(e.dir); err == nil {
				r.Value, r.Text = d, d
			}
		}
	case "price":
		if v.v == nil {
			r.Value = nil
			if p, ok := llm.PriceFor(e.Model); ok {
				r.Value = p
				r.Text = formatPrice(p, ", list price of "+llm.PricesAsOf)
			}
		}
	case "instructions":
		r.Text = firstLine(r.Text)
	case "learnings":
		// Where they were read and how many: the list follows the table.
		switch {
		case e.LearningsFrom != "":
			r.Text = fmt.Sprintf("%s (%d)", e.LearningsFrom, len(e.Learnings))
		case r.Text != "none":
			r.Text += " (none: no such file)"
		}
		r.Value = map[string]any{"file": v.v, "from": e.LearningsFrom, "learnings": e.learningsOrEmpty()}
	case "max_units", "max_prompt_tokens", "max_cost", "prompt_budget":
		if r.Text == "0" {
			r.Text = "0 (no limit)"
		}
	}
}

// learningsOrEmpty is the learnings for JSON: a list, never null.
func (e *Effective) learningsOrEmpty() []learn.Learning {
	if e.Learnings == nil {
		return []learn.Learning{}
	}
	return e.Learnings
}

// formatPrice shows a price in a table cell; note is added to the unit.
func formatPrice(p llm.Price, note string) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("prompt %s, cached %s, completion %s (USD per 1M tokens%s)", f(p.Prompt), f(p.Cached), f(p.Completion), note)
}

// firstLine shortens text to its first line, saying how much more there is.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	first := []rune(strings.TrimSpace(lines[0]))
	out := string(first)
	if len(first) > 60 {
		out = string(first[:60]) + "…"
	}
	if len(lines) > 1 {
		out += fmt.Sprintf(" (%d lines)", len(lines))
	}
	return out
}

// WriteTable prints the settings as an aligned table, then the files that
// were looked for.
func (e *Effective) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, r := range e.Rows() {
		text := r.Text
		if text == "" {
			text = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Key, cell(text), cell(r.Source))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(e.Learnings) > 0 {
		fmt.Fprintf(w, "learnings (%s):\n", e.LearningsFrom)
		for _, l := range e.Learnings {
			fmt.Fprintf(w, "  %s\n", cell(learn.Line(l)))
		}
		fmt.Fprintln(w)
	}
	for i, f := range e.files {
		label := "repository file"
		if i > 0 {
			label = "user file"
		}
		switch {
		case f.path == "" && i == 0:
			fmt.Fprintf(w, "%s: none (not in a git work tree)\n", label)
		case f.path == "":
			fmt.Fprintf(w, "%s: none (neither XDG_CONFIG_HOME nor HOME is set)\n", label)
		case f.found:
			fmt.Fprintf(w, "%s: %s\n", label, f.path)
		default:
			fmt.Fprintf(w, "%s: %s (not found)\n", label, f.path)
		}
	}
	return nil
}

// cell keeps a value on one table cell: control characters (tabs, line
// breaks, terminal escapes from a hostile file) become spaces.
func cell(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// MarshalJSON writes {"key": {"value": ..., "source": ...}, ...}, in the
// order of the rows.
func (rows Rows) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(r.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(struct {
			Value  any    `json:"value"`
			Source string `json:"source"`
		}{r.Value, r.Source})
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
