package conversation

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers of o200k_base and cl100k_base, written out as code.
// tiktoken defines them as regular expressions with lookahead, which Go's
// regexp cannot run; tiktoken-go runs them with regexp2, a backtracking
// engine that took most of the time of counting a large diff. The
// functions below find the same pieces: each alternative of the pattern
// is tried in order at the current position, with the backtracking its
// quantifiers would do worked out by hand. TestSplitMatchesPattern and
// FuzzSplit hold them to the patterns run by regexp2 (patterns in bpe.go),
// which rune classes they use (Go's unicode tables) and all.

// splitter returns the end of the piece that starts at i in s; i < len(s).
type splitter func(s string, i int) int

// class bits of a rune, for the classes the patterns use.
const (
	cL  = 1 << iota // \p{L}
	cN              // \p{N}
	cS              // \s (unicode.IsSpace, as regexp2 has it)
	cA              // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cB              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cNL             // \r or \n
)

// asciiClass holds the classes of the ASCII runes.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return t
}()

func classOf(r rune) uint8 {
	var c uint8
	if unicode.IsLetter(r) {
		c |= cL
	}
	if unicode.IsNumber(r) {
		c |= cN
	}
	if unicode.IsSpace(r) {
		c |= cS
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cA
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cB
	}
	if r == '\r' || r == '\n' {
		c |= cNL
	}
	return c
}

// at returns the rune at i, its size and its classes; past the end, size 0.
func at(s string, i int) (rune, int, uint8) {
	if i >= len(s) {
		return 0, 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, asciiClass[c]
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r, n, classOf(r)
}

// isP is [^\r\n\p{L}\p{N}]: the optional lead of a word.
func isP(c uint8) bool { return c&(cNL|cL|cN) == 0 }

// isQ is [^\s\p{L}\p{N}]: punctuation and symbols.
func isQ(c uint8) bool { return c&(cS|cL|cN) == 0 }

// run returns the end of the longest run from i of runes with a class in
// mask.
func run(s string, i int, mask uint8) int {
	for i < len(s) {
		// ASCII, nearly all of code, without a call a byte.
		if c := s[i]; c < utf8.RuneSelf {
			if asciiClass[c]&mask == 0 {
				return i
			}
			i++
			continue
		}
		_, n, c := at(s, i)
		if c&mask == 0 {
			return i
		}
		i += n
	}
	return i
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return 0
	}
	r1, n1, _ := at(s, i+1)
	if n1 == 0 {
		return 0
	}
	switch unicode.ToLower(r1) {
	case 's', 't', 'm', 'd':
		return 1 + n1
	case 'r', 'v', 'l':
		r2, n2, _ := at(s, i+1+n1)
		want := 'e'
		if unicode.ToLower(r1) == 'l' {
			want = 'l'
		}
		if n2 > 0 && unicode.ToLower(r2) == want {
			return 1 + n1 + n2
		}
	}
	return 0
}

// spaces finishes the three alternatives for white space every pattern
// ends with, \s*[\r\n]+|\s+(?!\S)|\s+, at i; it returns -1 when s[i] is
// not white space.
func spaces(s string, i int) int {
	w := run(s, i, cS)
	if w == i {
		return -1
	}
	// \s*[\r\n]+: the white space up to its last line break.
	last := -1
	for j := i; j < w; j++ {
		if s[j] == '\r' || s[j] == '\n' {
			last = j
		}
	}
	if last >= 0 {
		return last + 1
	}
	// \s+(?!\S): all of it at the end of s, else all but its last rune,
	// which then stands before the next piece; \s+ when that leaves none.
	if w == len(s) {
		return w
	}
	_, lastSize := utf8.DecodeLastRuneInString(s[i:w])
	if w-lastSize > i {
		return w - lastSize
	}
	return w
}

// punct is ` ?Q+` then a run of the runes in tail, at i; -1 if no match.
func punct(s string, i int, tail func(r rune) bool) int {
	j := i
	if s[i] == ' ' {
		if _, n, c := at(s, i+1); n > 0 && isQ(c) {
			j = i + 1
		}
	}
	_, n, c := at(s, j)
	if n == 0 || !isQ(c) {
		return -1
	}
	e := j
	for {
		_, n, c := at(s, e)
		if n == 0 || !isQ(c) {
			break
		}
		e += n
	}
	for {
		r, n, _ := at(s, e)
		if n == 0 || !tail(r) {
			return e
		}
		e += n
	}
}

// numbers is \p{N}{1,3} at i; -1 if s[i] is not a number.
func numbers(s string, i int) int {
	e := i
	for k := 0; k < 3; k++ {
		_, n, c := at(s, e)
		if n == 0 || c&cN == 0 {
			break
		}
		e += n
	}
	if e == i {
		return -1
	}
	return e
}

// o200kUpperLower is A*B+ at j, backtracking as the pattern does; -1 if
// it cannot match.
func o200kUpperLower(s string, j int) int {
	k := run(s, j, cA)
	if _, n, c := at(s, k); n > 0 && c&cB != 0 {
		return run(s, k, cB)
	}
	// Backtrack A*: B+ then matches the last rune of the A run that is
	// also in B, alone (what follows it is not in B).
	for p := k; p > j; {
		_, n := utf8.DecodeLastRuneInString(s[j:p])
		p -= n
		if _, _, c := at(s, p); c&cB != 0 {
			return p + n
		}
	}
	return -1
}

// splitO200k is o200k_base's pre-tokenizer.
func splitO200k(s string, i int) int {
	_, n, c := at(s, i)
	starts := []int{i}
	if isP(c) {
		starts = []int{i + n, i}
	}
	// [^\r\n\p{L}\p{N}]?[A]*[B]+(?i:contraction)?
	for _, j := range starts {
		if e := o200kUpperLower(s, j); e >= 0 {
			return e + contraction(s, e)
		}
	}
	// [^\r\n\p{L}\p{N}]?[A]+[B]*(?i:contraction)?
	for _, j := range starts {
		if k := run(s, j, cA); k > j {
			e := run(s, k, cB)
			return e + contraction(s, e)
		}
	}
	if e := numbers(s, i); e >= 0 {
		return e
	}
	if e := punct(s, i, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' }); e >= 0 {
		return e
	}
	if e := spaces(s, i); e >= 0 {
		return e
	}
	return i + max(n, 1) // not reached: every rune is in some class
}

// splitCL100k is cl100k_base's pre-tokenizer.
func splitCL100k(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	_, n, c := at(s, i)
	if isP(c) {
		if _, _, c2 := at(s, i+n); c2&cL != 0 {
			return run(s, i+n, cL)
		}
	}
	if c&cL != 0 {
		return run(s, i, cL)
	}
	if e := numbers(s, i); e >= 0 {
		return e
	}
	if e := punct(s, i, func(r rune) bool { return r == '\r' || r == '\n' }); e >= 0 {
		return e
	}
	if e := spaces(s, i); e >= 0 {
		return e
	}
	return i + max(n, 1)
}

// splitters are the pre-tokenizers by encoding.
var splitters = map[string]splitter{O200k: splitO200k, CL100k: splitCL100k}
