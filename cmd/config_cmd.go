package cmd

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
	"unicode"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/toolmem"
)

// ConfigOptions are the settings of `review config`.
type ConfigOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	JSON bool
	agentFlags
}

// NewCmdConfig builds `review config`. runF replaces the real run in tests.
func NewCmdConfig(f *Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "config [flags]",
		Short: "Show the effective configuration and where each value comes from",
		Long: `config prints the settings a review run here would use, and where each one
comes from: a flag, an environment variable, the repository's .review.yaml,
the user's configuration file, or the default. It takes the same flags as
review, so their effect can be seen too, and it fails on the same mistakes
in the configuration files, which makes it a quick check of a file.

Settings are read, first match wins, from:

  1. flags
  2. environment: REVIEW_MODEL, OPENAI_BASE_URL, REVIEW_STORE, REVIEW_FAIL_ON
  3. .review.yaml at the top of the repository's working tree
  4. $XDG_CONFIG_HOME/review/config.yaml (default ~/.config/review/config.yaml)
  5. defaults

Configuration files are YAML mappings with the keys model, base_url,
tokenizer, off_diff, context_window, answer_reserve, static_share,
preview_chars, max_steps, history_turns, history_chars, fail_on,
instructions, ignore, severity and price. A key set in one file replaces
that key of a file below it whole: lists and mappings are not merged.`,
		Example: `  review config
  review config --model gpt-4o --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runConfig(opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"key": {"value": ..., "source": ...}} for every setting`)
	opts.agentFlags.register(c.Flags())
	return c
}

// configRow is one setting as `review config` shows it.
type configRow struct {
	key    string
	value  any    // for --json
	text   string // for the table
	source string
}

func runConfig(opts *ConfigOptions) error {
	e, err := opts.effective(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	rows := configRows(e, opts.Dir)
	if opts.JSON {
		return report.WriteJSON(opts.IO.Out, configJSON(rows))
	}
	return writeConfigTable(opts.IO.Out, rows, e.files)
}

// configRows lists every setting in the order of configKeys.
func configRows(e *effective, dir string) []configRow {
	rows := make([]configRow, 0, len(configKeys))
	for _, k := range configKeys {
		v := e.values[k.name]
		r := configRow{key: k.name, value: v.v, source: v.src}
		switch x := v.v.(type) {
		case string:
			r.text = x
		case int:
			r.text = strconv.Itoa(x)
		case float64:
			r.text = strconv.FormatFloat(x, 'g', -1, 64)
		case review.Severity:
			r.value, r.text = string(x), string(x)
			if x == "" {
				r.value, r.text = "none", "none"
			}
		case []string:
			if x == nil {
				r.value = []string{}
			}
			r.text = strings.Join(x, ", ")
		case map[string]review.Severity:
			if x == nil {
				r.value = map[string]review.Severity{}
			}
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(x)) {
				parts = append(parts, c+"="+string(x[c]))
			}
			r.text = strings.Join(parts, ", ")
		case llm.Price:
			r.text = formatPrice(x, "")
		}
		switch k.name {
		case "store":
			if r.text == "" {
				// The store's default lies in the repository's git
				// directory; outside a repository there is none.
				r.value = nil
				if d, err := toolmem.DefaultDir(dir); err == nil {
					r.value, r.text = d, d
				}
			}
		case "price":
			if v.v == nil {
				r.value = nil
				if p, ok := llm.PriceFor(e.Model); ok {
					r.value = p
					r.text = formatPrice(p, ", list price of "+llm.PricesAsOf)
				}
			}
		case "instructions":
			r.text = firstLine(r.text)
		}
		rows = append(rows, r)
	}
	return rows
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

// writeConfigTable prints the settings as an aligned table, then the files
// that were looked for.
func writeConfigTable(w io.Writer, rows []configRow, files []configFile) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, r := range rows {
		text := r.text
		if text == "" {
			text = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.key, cell(text), cell(r.source))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i, f := range files {
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

// configJSON marshals the rows as one object in the order of configKeys.
type configJSON []configRow

// MarshalJSON writes {"key": {"value": ..., "source": ...}, ...}.
func (rows configJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(r.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(struct {
			Value  any    `json:"value"`
			Source string `json:"source"`
		}{r.value, r.source})
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
