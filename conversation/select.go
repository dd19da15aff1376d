package conversation

import (
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/reviewdev/review/internal/lazy"
)

// How earlier turns are chosen when not all of them fit the history
// limits.
const (
	// SelectRecency drops the oldest turns first.
	SelectRecency = "recency"
	// SelectRelevance drops the turns least relevant to the new question
	// first, recency breaking ties: a question about an old turn's file
	// brings that turn back.
	SelectRelevance = "relevance"
)

// Scoring of earlier turns, documented in the README.
const (
	// relevanceWeight and recencyWeight make a turn's score.
	relevanceWeight = 0.7
	recencyWeight   = 0.3
	// recencyHalfLife is the age in turns at which recency halves: the
	// newest earlier turn has recency 1, the one before it 0.71, four
	// turns back 0.25.
	recencyHalfLife = 2.0
	// minRelevance is the relevance below which a turn counts as
	// irrelevant: it is then kept only as recency alone would keep it.
	minRelevance = 0.15
	// strongWeight is the weight of a path or identifier term; a plain
	// word weighs 1 and a common word nothing.
	strongWeight = 3
)

// TurnScore is how one earlier turn scored against the new question, and
// whether it was kept.
type TurnScore struct {
	Turn      int     `json:"turn"`
	Relevance float64 `json:"relevance"`
	Recency   float64 `json:"recency"`
	Score     float64 `json:"score"`
	// Terms are the question's terms found in the turn, strongest first.
	Terms []string `json:"terms,omitempty"`
	// Named marks a turn that produced a ref or path the question names.
	Named bool `json:"named,omitempty"`
	Kept  bool `json:"kept"`
}

// term is a word of a question with its weight.
type term struct {
	text   string
	weight float64
}

// termRE finds words: identifiers and paths (letters, digits, _ . / -),
// and runs of letters of other scripts.
var termRE = lazy.Regexp(`[\p{L}\p{N}_][\p{L}\p{N}_./-]*`)

// refRE finds refs of tool memory as previews and stubs print them.
// A ref is twelve digits (or ten lowercase base32 characters, in a store
// written before).
var refRE = lazy.Regexp(`\b(?:[0-9]{12}|[a-z2-7]{10})\b`)

// commonWords weigh nothing: they say nothing about which turn matters.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of in on at to for from by with without
		is are was were be been being do does did done has have had this that these those it its
		what which who whom whose when where why how can could should would will shall may might must
		not no yes so than too very just also again back go going about there here any all some
		i you we they he she me us them my your our their please tell show look see explain
		fix fixed change changes changed code file files line lines function review question answer enough`) {
		commonWords[w] = true
	}
}

// questionTerms splits a question into weighted terms: paths and
// identifiers (a slash, a dot, an underscore, inner capitals or digits)
// weigh strongWeight, other words 1, common words 0 (left out). Text in
// scripts without spaces between words (Chinese, Japanese) becomes
// overlapping pairs of characters, which match without a dictionary.
func questionTerms(q string) []term {
	seen := map[string]bool{}
	var out []term
	add := func(t string, w float64) {
		t = strings.ToLower(strings.Trim(t, "./-"))
		if t == "" || seen[t] || w == 0 {
			return
		}
		seen[t] = true
		out = append(out, term{t, w})
	}
	for _, w := range termRE().FindAllString(q, -1) {
		if hasUnspaced(w) {
			r := []rune(w)
			for i := range r {
				if i+1 < len(r) && unspaced(r[i]) && unspaced(r[i+1]) {
					add(string(r[i:i+2]), 1)
				}
			}
			continue
		}
		switch lw := strings.ToLower(strings.Trim(w, "./-")); {
		case commonWords[lw]:
		case strongTerm(w):
			add(w, strongWeight)
			// A path also matches by its file name: "cache.go" in a
			// turn that read "internal/cache.go".
			if i := strings.LastIndexByte(w, '/'); i >= 0 {
				add(w[i+1:], strongWeight)
			}
		case len([]rune(lw)) >= 3:
			add(w, 1)
		}
	}
	return out
}

// strongTerm reports whether a word looks like a path or an identifier.
func strongTerm(w string) bool {
	if strings.ContainsAny(w, "/._") {
		return true
	}
	r := []rune(w)
	for i := 1; i < len(r); i++ {
		if unicode.IsUpper(r[i]) || unicode.IsDigit(r[i]) {
			return true
		}
	}
	return false
}

// unspaced reports whether r is of a script written without spaces
// between words.
func unspaced(r rune) bool {
	// The long vowel mark and the iteration mark are of no script.
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai) || r == 'ー' || r == '々'
}

func hasUnspaced(w string) bool { return strings.ContainsFunc(w, unspaced) }

// scoreTurns scores each earlier turn (turns, oldest first) against the
// question q. The newest of them has recency 1.
func (c *History) scoreTurns(turns []int, q string) []TurnScore {
	terms := questionTerms(q)
	total := 0.0
	for _, t := range terms {
		total += t.weight
	}
	text, named := c.turnTexts(q)
	out := make([]TurnScore, len(turns))
	newest := turns[len(turns)-1]
	for i, turn := range turns {
		s := TurnScore{Turn: turn, Recency: math.Pow(0.5, float64(newest-turn)/recencyHalfLife)}
		body := text[turn]
		found := 0.0
		for _, t := range terms {
			if strings.Contains(body, t.text) {
				found += t.weight
				s.Terms = append(s.Terms, t.text)
			}
		}
		if total > 0 {
			s.Relevance = found / total
		}
		if named[turn] {
			s.Named = true
		}
		for _, t := range terms {
			if t.weight == strongWeight && strings.ContainsAny(t.text, "/.") && strings.Contains(body, t.text) {
				s.Named = true
			}
		}
		if s.Named {
			s.Relevance = 1
		}
		rel := s.Relevance
		if rel < minRelevance {
			rel = 0
		}
		s.Score = relevanceWeight*rel + recencyWeight*s.Recency
		s.Relevance, s.Recency, s.Score = round2(s.Relevance), round2(s.Recency), round2(s.Score)
		if len(s.Terms) > 6 {
			s.Terms = s.Terms[:6]
		}
		out[i] = s
	}
	return out
}

// dropOrder is the order in which the earlier turns (oldest first) are
// given up: the lowest score first, the older of two equal scores first;
// the newest earlier turn last of all, whatever its score, so it goes only
// when the limits leave room for no earlier turn.
func dropOrder(scores []TurnScore) []int {
	if len(scores) == 0 {
		return nil
	}
	order := slices.Clone(scores[:len(scores)-1])
	slices.SortStableFunc(order, func(a, b TurnScore) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return a.Turn - b.Turn
	})
	turns := make([]int, 0, len(scores))
	for _, s := range order {
		turns = append(turns, s.Turn)
	}
	return append(turns, scores[len(scores)-1].Turn)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// turnTexts returns, by turn, the lower-cased text of its messages and
// tool arguments that a question's terms are looked for in, and the
// turns the question q names by the ref of an output they made.
//
// A ref is drawn at random, so its digits must not decide a turn's
// relevance: a question's "11" would match a turn whose ref holds those
// digits in one run and not in the next, and two runs of one
// conversation would keep different turns. The refs outputs were stored
// under are taken out of the text, and a question names a turn by a ref
// only if that turn's output was stored under it (a ten-letter word is
// no ref unless an output has it).
func (c *History) turnTexts(q string) (map[int]string, map[int]bool) {
	made := map[string]int{}
	for _, m := range c.msgs {
		if m.Ref != "" && m.Turn > 0 {
			made[m.Ref] = m.Turn
		}
	}
	named := map[int]bool{}
	for _, r := range refRE().FindAllString(q, -1) {
		if t, ok := made[r]; ok {
			named[t] = true
		}
	}
	pairs := make([]string, 0, 2*len(made))
	for _, r := range slices.Sorted(maps.Keys(made)) {
		pairs = append(pairs, r, " ")
	}
	unref := strings.NewReplacer(pairs...)
	text := map[int]*strings.Builder{}
	for _, m := range c.msgs {
		if m.Turn <= 0 || m.Layer == Static || m.Layer == Summary {
			continue
		}
		b := text[m.Turn]
		if b == nil {
			b = &strings.Builder{}
			text[m.Turn] = b
		}
		for _, s := range append([]string{m.Content}, argumentsOf(m)...) {
			b.WriteString(strings.ToLower(unref.Replace(s)))
			b.WriteByte('\n')
		}
	}
	out := make(map[int]string, len(text))
	for turn, b := range text {
		out[turn] = b.String()
	}
	return out, named
}

// argumentsOf returns the arguments of m's tool calls.
func argumentsOf(m Message) []string {
	var out []string
	for _, tc := range m.ToolCalls {
		out = append(out, tc.Arguments)
	}
	return out
}
