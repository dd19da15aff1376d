package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestNewCmdBench: the flags fill the options; --jobs, --max-cost and
// --store are the bench's own, and the review's other flags are the
// review's, as review --base takes them.
func TestNewCmdBench(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want func(*BenchOptions) bool
		err  string
	}{
		{args: []string{"--corpus", "c.jsonl"}, want: func(o *BenchOptions) bool {
			return o.Corpus == "c.jsonl" && o.Slack == 3 && o.Repeat == 1 && o.Jobs == 1 && o.MaxCost == 0 && !o.Resume
		}},
		{args: []string{"--corpus", "c", "--jobs", "4", "--max-cost", "2.5", "--slack", "0", "--repeat", "3", "--shard", "2/4", "--resume"}, want: func(o *BenchOptions) bool {
			return o.Jobs == 4 && o.MaxCost == 2.5 && o.Slack == 0 && o.Repeat == 3 && o.Shard == "2/4" && o.Resume && o.agentFlags.Jobs == 0 && o.agentFlags.MaxCost == 0
		}},
		{args: []string{"--corpus", "c", "--model", "gpt-4o", "--static-share", "0.3", "--format", "aacr", "--format", "json"}, want: func(o *BenchOptions) bool {
			v, ok := o.given("static-share")
			_, jobs := o.given("jobs")
			return o.Model == "gpt-4o" && ok && v == "0.3" && !jobs && strings.Join(o.Formats, ",") == "aacr,json"
		}},
		{args: []string{}, err: "--corpus is required"},
		{args: []string{"--corpus", "c", "--store", "x"}, err: "unknown flag: --store"},
		{args: []string{"--corpus", "c", "--fail-on", "high"}, err: "unknown flag: --fail-on"},
		{args: []string{"--corpus", "c", "extra"}, err: `unknown command "extra" for "bench"`},
	} {
		var got *BenchOptions
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		c := NewCmdBench(f, func(o *BenchOptions) error { got = o; return nil })
		c.SetArgs(tc.args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		c.SilenceErrors, c.SilenceUsage = true, true
		err := c.Execute()
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case !tc.want(got):
			t.Errorf("%v: options %+v", tc.args, got)
		}
	}
}

func TestBenchFormatsAndShard(t *testing.T) {
	for _, tc := range []struct {
		formats     []string
		out, corpus string
		err         string
	}{
		{nil, "table", "", ""},
		{[]string{"json"}, "json", "", ""},
		{[]string{"aacr", "json"}, "json", "aacr", ""},
		{[]string{"jsonl"}, "table", "jsonl", ""},
		{[]string{"swr"}, "", "", "SWRBench's format is not read yet"},
		{[]string{"xml"}, "", "", `unknown --format "xml"`},
	} {
		out, corpus, err := (&BenchOptions{Formats: tc.formats}).benchFormats()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v", tc.formats, err)
			}
			continue
		}
		if err != nil || out != tc.out || corpus != tc.corpus {
			t.Errorf("%v: %q %q %v", tc.formats, out, corpus, err)
		}
	}
	for s, want := range map[string][2]int{"": {0, 0}, "1/1": {1, 1}, "3/4": {3, 4}} {
		k, n, err := parseShard(s)
		if err != nil || k != want[0] || n != want[1] {
			t.Errorf("%q: %d/%d %v", s, k, n, err)
		}
	}
	for _, s := range []string{"0/4", "5/4", "2", "a/b", "1/0", "-1/2"} {
		if _, _, err := parseShard(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
