package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// DoctorOptions are the settings of `review doctor`.
type DoctorOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Store  string
	JSON   bool
	// Endpoint checks the model endpoint instead of the store, as
	// configured or as Model and BaseURL say.
	Endpoint       bool
	Model, BaseURL string
}

// NewCmdDoctor builds `review doctor`.
func NewCmdDoctor(f *Factory) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check tool memory against its checksums, or the model endpoint",
		Long: `doctor opens tool memory read-only and checks it: its files before they are
opened (the MANIFEST, every table against its checksums, the logs), then every
record (each value against its checksum, each run, step, output and event
decoded, each stored body against its recorded length). It lists what is
damaged and exits with code 6 if anything is, 0 if nothing is. It changes
nothing in the store.

doctor --endpoint checks the model endpoint instead, as a review would use
it (--model, --base-url, the environment and configuration files): it asks
the server the context window it serves the model with and whether it
counts tokens (llama.cpp's /tokenize), then makes one minimal request, a
forced tool call with a strict schema, streamed unless streaming is off. It
says the window and where it came from, what a review counts tokens with,
whether streaming works, the fallbacks the server needed (the features it
refused, which a review does without), and the latency.`,
		Example: `  review doctor
  review doctor --store /tmp/old-store --json
  review doctor --endpoint
  OPENAI_BASE_URL=http://localhost:8080/v1 review doctor --endpoint --model qwen2.5-coder`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if !opts.Endpoint && (opts.Model != "" || opts.BaseURL != "") {
				return usageErrorf("--model and --base-url name an endpoint to check: add --endpoint")
			}
			if opts.Endpoint {
				return runDoctorEndpoint(c.Context(), opts)
			}
			return runDoctor(opts)
		},
	}
	addStoreFlag(c.Flags(), &opts.Store)
	c.Flags().BoolVar(&opts.Endpoint, "endpoint", false, "check the model endpoint: one minimal request, and what it learned")
	c.Flags().StringVar(&opts.Model, "model", "", "with --endpoint: the model to ask for (default as a review: $REVIEW_MODEL, the configuration, gpt-4o-mini)")
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "with --endpoint: the endpoint to check (default as a review: $OPENAI_BASE_URL, the configuration, OpenAI)")
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"store", "records", "runs", "steps", "outputs", "bytes", "problems": [{"record", "problem"}], "recovered", "free"}`)
	return c
}

// errDamagedRecords is the error of a store that opens but holds damaged
// records; doctor has listed them already.
type errDamagedRecords struct {
	dir string
	n   int
}

func (e *errDamagedRecords) Error() string {
	return fmt.Sprintf("tool memory at %s has %s; the rest is readable: move the store aside to start afresh (mv %s %s.damaged), and read it with --store", e.dir, text.Plural(e.n, "damaged record"), e.dir, e.dir)
}

func (e *errDamagedRecords) Unwrap() error { return toolmem.ErrDamaged }

func runDoctor(opts *DoctorOptions) error {
	// Warnings would repeat the problems the report lists.
	st, err := openStoreWith(opts.Store, readerEnv(opts.Getenv), opts.Dir, toolmem.Options{ReadOnly: true})
	err = held(err, false)
	if err != nil {
		if opts.JSON && errors.Is(err, toolmem.ErrDamaged) {
			// The store cannot be opened: one problem, the store itself.
			d, _ := storeDir(opts.Store, opts.Getenv, opts.Dir)
			if werr := report.WriteJSON(opts.IO.Out, toolmem.Report{Dir: d, Problems: []toolmem.Problem{{Record: "the store", Problem: err.Error()}}}); werr != nil {
				return werr
			}
		}
		return err
	}
	defer st.Close()
	rep, err := st.Verify()
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := report.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(opts.IO.Out, "damaged: %s: %s\n", p.Record, p.Problem)
		}
		if rep.Recovered {
			fmt.Fprintln(opts.IO.Out, "recovered: the store was left by a review that was killed; its logs were trimmed of unused space, as the next review would have done")
		}
		if rep.Free >= 0 && rep.Free < toolmem.MinFree {
			// Not damage: the store reads; a review would not start.
			fmt.Fprintf(opts.IO.Out, "low space: %s free on its file system; a review needs %s\n", toolmem.MiB(rep.Free), toolmem.MiB(toolmem.MinFree))
		}
		fmt.Fprintf(opts.IO.Out, "tool memory at %s: %s (%s, %s, %s, %s): %s\n",
			rep.Dir, text.Plural(rep.Records, "record"), text.Plural(rep.Runs, "run"), text.Plural(rep.Steps, "step"),
			text.Plural(rep.Outputs, "output"), humanize.IBytes(uint64(rep.Bytes)), verdict(len(rep.Problems)))
	}
	if len(rep.Problems) > 0 {
		return &errDamagedRecords{dir: rep.Dir, n: len(rep.Problems)}
	}
	return nil
}

// endpointReport is what doctor --endpoint learned, as --json prints it.
type endpointReport struct {
	URL           string `json:"url"`
	URLFrom       string `json:"url_from,omitempty"`
	Model         string `json:"model"`
	Window        int    `json:"window_tokens,omitempty"`
	WindowSource  string `json:"window_source,omitempty"`
	WindowWarning string `json:"window_warning,omitempty"`
	TableWindow   int    `json:"table_window_tokens,omitempty"`
	// Tokenizer is the server's count a review uses ("llama.cpp
	// /tokenize"), else TokenizerError says why it has none; Counted is
	// what a review counts with, "" when it would fail (--tokenizer
	// server, and the server does not count).
	Tokenizer      string `json:"tokenizer,omitempty"`
	TokenizerError string `json:"tokenizer_error,omitempty"`
	Counted        string `json:"counted_with,omitempty"`
	// Borrowed says Counted is not the model's own tokenizer: its
	// counts are estimates.
	Borrowed bool `json:"tokenizer_borrowed,omitempty"`
	// Jobs is how many units a review runs side by side, and JobsFrom
	// why: a setting, or the default rule (review.JobsFor).
	Jobs        int                `json:"jobs"`
	JobsFrom    string             `json:"jobs_from"`
	LatencyMS   int64              `json:"latency_ms"`
	FirstByteMS int64              `json:"first_byte_ms,omitempty"`
	Attempts    int                `json:"attempts"`
	Streamed    bool               `json:"streamed"`
	ToolChoice  string             `json:"tool_choice,omitempty"`
	ToolCalled  bool               `json:"tool_called"`
	Fallbacks   []endpointFallback `json:"fallbacks"`
	Error       string             `json:"error,omitempty"`
}

// endpointFallback is a feature the server refused and what is sent
// instead (llm.Fallback).
type endpointFallback struct {
	Feature string `json:"feature"`
	From    string `json:"from"`
	To      string `json:"to"`
	Reason  string `json:"reason"`
}

// runDoctorEndpoint checks the model endpoint as a review would use it.
func runDoctorEndpoint(ctx context.Context, opts *DoctorOptions) error {
	set, err := (&agentFlags{Model: opts.Model, BaseURL: opts.BaseURL, ci: ciFrom(opts.Getenv)}).resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	key := opts.Getenv("OPENAI_API_KEY")
	if key == "" && !llm.Local(set.BaseURL) {
		return runAdvice(&review.NoAPIKeyError{URL: set.BaseURL})
	}
	cfg := llm.ClientConfig{
		BaseURL: set.BaseURL, BaseURLFrom: set.BaseURLFrom, APIKey: key, Timeout: set.Timeout,
		Headers: expandHeaders(set.Headers, opts.Getenv), ExtraBody: set.ExtraBody,
		Stream: set.Stream, FirstByteTimeout: set.FirstByteTimeout,
		// One request: a server that fails it is reported, not retried.
		MaxAttempts: 1,
	}
	p, perr := llm.ProbeEndpoint(ctx, cfg, set.Model)
	rep := endpointReport{
		URL: llm.DisplayURL(set.BaseURL), URLFrom: set.BaseURLFrom, Model: set.Model, TableWindow: p.Table,
		LatencyMS: p.Latency.Milliseconds(), FirstByteMS: p.FirstByte.Milliseconds(), Attempts: p.Attempts,
		Streamed: p.Streamed, ToolChoice: p.ToolChoice, ToolCalled: p.Called, Fallbacks: []endpointFallback{},
	}
	for _, fb := range p.Fallbacks {
		rep.Fallbacks = append(rep.Fallbacks, endpointFallback{fb.Feature, fb.From, fb.To, fb.Reason})
	}
	if p.WindowKnown {
		rep.Window, rep.WindowSource, rep.WindowWarning = p.Window.Tokens, p.Window.Source, p.Window.Warning
	}
	rep.counting(&set.Config, p)
	rep.Jobs, rep.JobsFrom = set.Jobs, set.JobsFrom
	if set.Jobs <= 0 {
		rep.Jobs, rep.JobsFrom = review.JobsFor(p.Discovery)
	}
	if perr != nil {
		rep.Error = errorLine(perr)
	}
	if opts.JSON {
		if err := report.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		writeEndpointReport(opts.IO.Out, rep, set.Stream, perr == nil)
	}
	if perr != nil {
		return runAdvice(perr)
	}
	return nil
}

// counting says what a review made with cfg counts tokens with, after
// the probe p: the same decision a review takes (review.AsksServer).
func (r *endpointReport) counting(cfg *result.Config, p *llm.Probe) {
	info := llm.Lookup(cfg.Model)
	r.Counted, r.Borrowed = conversation.Tiktoken+" "+info.Encoding, info.Borrowed
	switch {
	case cfg.Tokenizer == conversation.Estimate:
		r.Counted, r.Borrowed = conversation.Estimate, false
	case p.Tokenizer != nil && review.AsksServer(cfg, p.WindowKnown && p.Window.LlamaCpp):
		r.Counted, r.Borrowed = llm.TokenizerName, false
	case cfg.Tokenizer == conversation.Server:
		r.Counted, r.Borrowed = "", false
	}
	var te *llm.TokenizerError
	switch {
	case p.Tokenizer != nil:
		r.Tokenizer = llm.TokenizerName
	case errors.As(p.TokenizerErr, &te):
		r.TokenizerError = te.Reason
	case p.TokenizerErr != nil:
		r.TokenizerError = p.TokenizerErr.Error()
	}
}

// writeEndpointReport says what doctor --endpoint learned, a line a fact.
func writeEndpointReport(w io.Writer, r endpointReport, stream, answered bool) {
	from := r.URLFrom
	if from == "" {
		from = "the default"
	}
	fmt.Fprintf(w, "endpoint: %s (%s) · model %s\n", r.URL, from, r.Model)
	switch {
	case r.Window > 0:
		fmt.Fprintf(w, "window: %s tokens (%s)\n", text.Number(r.Window), r.WindowSource)
		if r.WindowWarning != "" {
			fmt.Fprintf(w, "  warning: %s\n", r.WindowWarning)
		}
	case r.TableWindow > 0:
		fmt.Fprintf(w, "window: the server does not say; the model table says %s tokens\n", text.Number(r.TableWindow))
	default:
		fmt.Fprintf(w, "window: not known: the server does not say and the model table does not know %s; set --context-window\n", r.Model)
	}
	fmt.Fprintf(w, "--jobs: %d (%s)\n", r.Jobs, r.JobsFrom)
	counted := "a review counts with " + r.Counted
	if r.Borrowed {
		counted += ", not the model's own tokenizer: its counts are estimates"
	}
	switch {
	case r.Tokenizer != "" && r.Counted == r.Tokenizer:
		fmt.Fprintf(w, "tokens: the server counts them (%s); a review uses its count\n", r.Tokenizer)
	case r.Tokenizer != "":
		fmt.Fprintf(w, "tokens: the server counts them (%s); %s (--tokenizer server uses the server's)\n", r.Tokenizer, counted)
	case r.Counted == "":
		fmt.Fprintf(w, "tokens: the server does not count them (%s); a review with --tokenizer server fails\n", text.OneLine(r.TokenizerError, 200))
	default:
		fmt.Fprintf(w, "tokens: the server does not count them (%s); %s\n", text.OneLine(r.TokenizerError, 200), counted)
	}
	if !answered {
		fmt.Fprintf(w, "request: failed after %s\n", time.Duration(r.LatencyMS)*time.Millisecond)
		return
	}
	first := ""
	if r.Streamed {
		first = fmt.Sprintf(", first byte after %s", time.Duration(r.FirstByteMS)*time.Millisecond)
	}
	fmt.Fprintf(w, "request: answered in %s%s (%s)\n", time.Duration(r.LatencyMS)*time.Millisecond, first, text.Plural(r.Attempts, "attempt"))
	switch {
	case r.Streamed:
		fmt.Fprintln(w, "streaming: works")
	case stream:
		fmt.Fprintln(w, "streaming: no: the server answers whole; a review reads answers whole")
	default:
		fmt.Fprintln(w, "streaming: off (--stream=false or stream: false)")
	}
	called := "the model called the tool"
	if !r.ToolCalled {
		called = "the model did not call the tool: a review would nudge it towards submit_review"
	}
	fmt.Fprintf(w, "tool choice: %s sent; %s\n", r.ToolChoice, called)
	if len(r.Fallbacks) == 0 {
		fmt.Fprintln(w, "fallbacks: none: the server took the request as a review sends it")
		return
	}
	for _, fb := range r.Fallbacks {
		fmt.Fprintf(w, "fallback: %s: %s → %s (%s)\n", fb.Feature, fb.From, fb.To, text.OneLine(fb.Reason, 200))
	}
}

func verdict(problems int) string {
	if problems == 0 {
		return "no damage found"
	}
	return fmt.Sprintf("%d damaged", problems)
}
