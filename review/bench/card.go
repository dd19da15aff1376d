package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// CardVersion is the version of the scorecard's JSON form.
const CardVersion = 1

// Failure is a run that produced no review to score: it failed, timed
// out, answered what could not be read, or never submitted its review (in
// whole or for a unit). Its case is not scored from it: a failure is
// counted and shown, never taken for a review that found nothing.
type Failure struct {
	// Kind is one of the Fail constants.
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// Kinds of failure.
const (
	FailBuild        = "build"
	FailError        = "error"
	FailTimeout      = "timeout"
	FailUnparsable   = "unparsable"
	FailNotSubmitted = "not_submitted"
	FailUnit         = "unit_failed"
)

// SeverityRecall is the recall of the expected issues of one severity.
type SeverityRecall struct {
	Expected int      `json:"expected"`
	Found    int      `json:"found"`
	Recall   *float64 `json:"recall"`
}

// SeverityPrecision is the precision of the findings of one severity.
type SeverityPrecision struct {
	Findings  int      `json:"findings"`
	Matched   int      `json:"matched"`
	Precision *float64 `json:"precision"`
}

// Counts are the scores and the cost of a run, a case or the whole bench.
// Rates are nil when they are not known (a precision without findings, a
// recall without expected issues), and counts only from the runs that did
// not fail; the cost counts every run.
type Counts struct {
	TP        int      `json:"tp"`
	FP        int      `json:"fp"`
	FN        int      `json:"fn"`
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        *float64 `json:"f1"`
	// RecallBySeverity is keyed by the expected issues' severity
	// (Unrated when the corpus gives none); PrecisionBySeverity by the
	// findings'.
	RecallBySeverity    map[string]*SeverityRecall    `json:"recall_by_severity"`
	PrecisionBySeverity map[string]*SeverityPrecision `json:"precision_by_severity"`
	// Unplaced are the findings the review could not place on a changed
	// line (kept for their file, or dropped).
	Unplaced int `json:"unplaced"`
	// Failures are the runs that failed.
	Failures         int     `json:"failures"`
	Requests         int     `json:"requests"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	WallS            float64 `json:"wall_s"`
	// With a judge (--judge-model): the matched findings it judged, those
	// it found describe their defect, their share, the questions it
	// could not answer and what it cost. Apart from the location score,
	// never mixed into it.
	Judged        int      `json:"judged,omitempty"`
	Described     int      `json:"described_correctly,omitempty"`
	DescribedRate *float64 `json:"described_rate,omitempty"`
	JudgeFailures int      `json:"judge_failures,omitempty"`
	JudgeCostUSD  float64  `json:"judge_cost_usd,omitempty"`
}

// RunScore is one review of a case, scored.
type RunScore struct {
	RunID string `json:"run_id,omitempty"`
	Counts
	Findings []Scored `json:"findings"`
	// Failure is set when the run could not be scored; its counts are
	// then zero, but for its cost.
	Failure *Failure `json:"failure,omitempty"`
}

// finish fills the rates from the counts.
func (c *Counts) finish() {
	c.Precision = ratio(c.TP, c.TP+c.FP)
	c.Recall = ratio(c.TP, c.TP+c.FN)
	c.F1 = f1(c.TP, c.FP, c.FN)
	for _, r := range c.RecallBySeverity {
		r.Recall = ratio(r.Found, r.Expected)
	}
	for _, p := range c.PrecisionBySeverity {
		p.Precision = ratio(p.Matched, p.Findings)
	}
	c.DescribedRate = ratio(c.Described, c.Judged)
}

// add adds the scores of o, unless it failed, and its cost.
func (c *Counts) add(o Counts, failed bool) {
	c.Requests += o.Requests
	c.PromptTokens += o.PromptTokens
	c.CompletionTokens += o.CompletionTokens
	c.CostUSD += o.CostUSD
	c.WallS += o.WallS
	c.Failures += o.Failures
	c.JudgeCostUSD += o.JudgeCostUSD
	if failed {
		return
	}
	c.TP += o.TP
	c.FP += o.FP
	c.FN += o.FN
	c.Unplaced += o.Unplaced
	c.Judged += o.Judged
	c.Described += o.Described
	c.JudgeFailures += o.JudgeFailures
	if c.RecallBySeverity == nil {
		c.RecallBySeverity = map[string]*SeverityRecall{}
	}
	if c.PrecisionBySeverity == nil {
		c.PrecisionBySeverity = map[string]*SeverityPrecision{}
	}
	for k, r := range o.RecallBySeverity {
		t := c.RecallBySeverity[k]
		if t == nil {
			t = &SeverityRecall{}
			c.RecallBySeverity[k] = t
		}
		t.Expected += r.Expected
		t.Found += r.Found
	}
	for k, p := range o.PrecisionBySeverity {
		t := c.PrecisionBySeverity[k]
		if t == nil {
			t = &SeverityPrecision{}
			c.PrecisionBySeverity[k] = t
		}
		t.Findings += p.Findings
		t.Matched += p.Matched
	}
}

// CaseScore is a case, what it expected, and its runs, scored.
type CaseScore struct {
	ID string `json:"id"`
	// Index is the case's place in the corpus, from 1.
	Index       int    `json:"index"`
	Description string `json:"description,omitempty"`
	Repo        string `json:"repo"`
	RevertOf    string `json:"revert_of,omitempty"`
	Clean       bool   `json:"clean"`
	// Base and Head are the commits reviewed.
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
	// Expected are the issues scored against; Derived says they are the
	// revert's hunks.
	Expected []Expected `json:"expected"`
	Derived  bool       `json:"derived,omitempty"`
	// Store is the tool memory the runs are recorded in: review replay
	// RUN --store STORE shows each.
	Store  string     `json:"store,omitempty"`
	RunIDs []string   `json:"run_ids"`
	Runs   []RunScore `json:"runs"`
	// Counts sum the runs: their scores, unless they failed; their cost.
	Counts
	// Error is why the case could not be built, if it could not.
	Error string `json:"error,omitempty"`
}

// Scored reports whether at least one run of the case was scored.
func (c *CaseScore) Scored() bool {
	for _, r := range c.Runs {
		if r.Failure == nil {
			return true
		}
	}
	return false
}

// sum fills the case's counts from its runs.
func (c *CaseScore) sum() {
	c.Counts = Counts{Failures: 0}
	c.RunIDs = []string{}
	for _, r := range c.Runs {
		if r.RunID != "" {
			c.RunIDs = append(c.RunIDs, r.RunID)
		}
		c.add(r.Counts, r.Failure != nil)
	}
	if c.Error != "" && len(c.Runs) == 0 {
		c.Failures++
	}
	c.finish()
}

// Spread is how a rate varied over the repeats of a bench.
type Spread struct {
	Mean   *float64 `json:"mean"`
	StdDev *float64 `json:"stddev"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

// Repeats are the rates of each repeat of a bench (the i-th run of every
// case) and their spread.
type Repeats struct {
	N         int    `json:"n"`
	Precision Spread `json:"precision"`
	Recall    Spread `json:"recall"`
	F1        Spread `json:"f1"`
}

// Total is the bench as a whole.
type Total struct {
	Counts
	Cases int `json:"cases"`
	// Scored are the cases with a run scored.
	Scored int `json:"scored_cases"`
	// CleanCases are the clean cases scored; CleanFP their findings, all
	// false positives; CleanFPPerCase the mean.
	CleanCases     int      `json:"clean_cases"`
	CleanFP        int      `json:"clean_fp"`
	CleanFPPerCase *float64 `json:"clean_fp_per_case"`
	// FailureKinds counts the failures by kind.
	FailureKinds map[string]int `json:"failure_kinds"`
	// NotRun are the cases a bound (--max-cost) left out.
	NotRun []string `json:"not_run,omitempty"`
	// Repeat is set when each case ran more than once.
	Repeat *Repeats `json:"repeat,omitempty"`
}

// Meta says how a bench was run, so two can be compared and shards
// merged.
type Meta struct {
	Corpus  string `json:"corpus"`
	Format  string `json:"format,omitempty"`
	Model   string `json:"model"`
	BaseURL string `json:"base_url"`
	// Settings are the review settings that shape what the model sees
	// (static share, window, steps, prompt), as text.
	Settings map[string]string `json:"settings,omitempty"`
	Slack    int               `json:"slack"`
	Repeat   int               `json:"repeat"`
	// Shard is "K/N" for one shard's result; merged results have none.
	Shard   string `json:"shard,omitempty"`
	Version string `json:"review_version,omitempty"`
	Started string `json:"started,omitempty"`
	// Stopped says why the bench stopped before its last case, if it did.
	Stopped string `json:"stopped,omitempty"`
}

// Scorecard is a bench's result: every number per case and in total, with
// the run IDs behind them.
type Scorecard struct {
	Version int         `json:"version"`
	Meta    Meta        `json:"meta"`
	Cases   []CaseScore `json:"cases"`
	Total   Total       `json:"total"`
}

// Summarize fills each case's counts from its runs and the total from the
// cases.
func (s *Scorecard) Summarize() {
	s.Version = CardVersion
	t := Total{FailureKinds: map[string]int{}, NotRun: s.Total.NotRun}
	if s.Cases == nil {
		s.Cases = []CaseScore{}
	}
	repeats := 0
	for i := range s.Cases {
		c := &s.Cases[i]
		c.sum()
		t.Cases++
		t.add(c.Counts, false)
		if c.Scored() {
			t.Scored++
			if c.Clean {
				t.CleanCases++
				t.CleanFP += c.FP
			}
		}
		for _, r := range c.Runs {
			if r.Failure != nil {
				t.FailureKinds[r.Failure.Kind]++
			}
		}
		if c.Error != "" && len(c.Runs) == 0 {
			t.FailureKinds[FailBuild]++
		}
		repeats = max(repeats, len(c.Runs))
	}
	t.CleanFPPerCase = ratio(t.CleanFP, t.CleanCases)
	t.finish()
	if repeats > 1 {
		t.Repeat = spreadOf(s.Cases, repeats)
	}
	s.Total = t
}

// spreadOf scores each repeat i from the i-th run of every case.
func spreadOf(cases []CaseScore, n int) *Repeats {
	var ps, rs, fs []float64
	for i := 0; i < n; i++ {
		var c Counts
		for _, cs := range cases {
			if i < len(cs.Runs) && cs.Runs[i].Failure == nil {
				c.add(cs.Runs[i].Counts, false)
			}
		}
		c.finish()
		for _, x := range []struct {
			v  *float64
			to *[]float64
		}{{c.Precision, &ps}, {c.Recall, &rs}, {c.F1, &fs}} {
			if x.v != nil {
				*x.to = append(*x.to, *x.v)
			}
		}
	}
	return &Repeats{N: n, Precision: spread(ps), Recall: spread(rs), F1: spread(fs)}
}

// spread is the mean, sample standard deviation, least and greatest of vs.
func spread(vs []float64) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	sum, lo, hi := 0.0, vs[0], vs[0]
	for _, v := range vs {
		sum += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	mean := sum / float64(len(vs))
	sd := 0.0
	if len(vs) > 1 {
		for _, v := range vs {
			sd += (v - mean) * (v - mean)
		}
		sd = math.Sqrt(sd / float64(len(vs)-1))
	}
	return Spread{Mean: &mean, StdDev: &sd, Min: &lo, Max: &hi}
}

// WriteJSON writes s as indented JSON.
func (s *Scorecard) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

// ReadScorecard reads a scorecard written by WriteJSON; name is its file,
// for errors.
func ReadScorecard(r io.Reader, name string) (*Scorecard, error) {
	var s Scorecard
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not the JSON result of a bench: %v", name, err)
	}
	if s.Version != CardVersion {
		return nil, fmt.Errorf("%s is not a bench result of this version of review (version %d, want %d)", name, s.Version, CardVersion)
	}
	return &s, nil
}

// Merge combines the results of shards of one bench into one: their cases,
// in the corpus's order as far as the IDs tell it, and the totals made
// again from them. Results of different models, settings, corpora or
// slack are not one bench and are refused, as is a case in two of them.
func Merge(cards []*Scorecard, names []string) (*Scorecard, error) {
	if len(cards) == 0 {
		return nil, errors.New("nothing to merge")
	}
	out := &Scorecard{Meta: cards[0].Meta}
	out.Meta.Shard = ""
	seen := map[string]string{}
	var notRun []string
	for i, c := range cards {
		if d := metaDiff(cards[0].Meta, c.Meta); d != "" {
			return nil, fmt.Errorf("%s and %s are not shards of one bench: %s differs", names[0], names[i], d)
		}
		for _, cs := range c.Cases {
			if at, ok := seen[cs.ID]; ok {
				return nil, fmt.Errorf("case %s is in both %s and %s: merge each shard once", cs.ID, at, names[i])
			}
			seen[cs.ID] = names[i]
			out.Cases = append(out.Cases, cs)
		}
		notRun = append(notRun, c.Total.NotRun...)
		// Shards may reach the same server by different addresses (a
		// local server's port, a runner's own): each is named.
		if !strings.Contains(", "+out.Meta.BaseURL+", ", ", "+c.Meta.BaseURL+", ") {
			out.Meta.BaseURL += ", " + c.Meta.BaseURL
		}
		if c.Meta.Stopped != "" && out.Meta.Stopped == "" {
			out.Meta.Stopped = c.Meta.Stopped
		}
	}
	sort.SliceStable(out.Cases, func(i, j int) bool { return out.Cases[i].Index < out.Cases[j].Index })
	out.Total.NotRun = notRun
	out.Summarize()
	return out, nil
}

// metaDiff names the first setting of b that makes it a different bench
// from a, or "".
func metaDiff(a, b Meta) string {
	switch {
	case a.Model != b.Model:
		return fmt.Sprintf("the model (%s, %s)", a.Model, b.Model)
	case a.Slack != b.Slack:
		return fmt.Sprintf("the slack (%d, %d)", a.Slack, b.Slack)
	case a.Repeat != b.Repeat:
		return fmt.Sprintf("the repeats (%d, %d)", a.Repeat, b.Repeat)
	case a.Corpus != b.Corpus:
		return fmt.Sprintf("the corpus (%s, %s)", a.Corpus, b.Corpus)
	}
	for k, v := range a.Settings {
		if b.Settings[k] != v {
			return fmt.Sprintf("the setting %s (%s, %s)", k, v, b.Settings[k])
		}
	}
	return ""
}
