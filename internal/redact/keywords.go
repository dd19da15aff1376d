package redact

import (
	"strings"
	"unsafe"
)

// keywords finds where a fixed set of lower-case keywords occur in a text,
// in one pass over it. gitleaks runs a rule only on text holding one of its
// keywords; here a rule runs only on the lines around them.
type keywords struct {
	list []string
	// byPair lists, for the first two bytes of a keyword, the indexes of
	// the keywords that start with them, as a span of idx: the low 16
	// bits are the count, the rest the offset. Keywords are at least two
	// bytes long (gitleaks' shortest are "sk" and "ey"); shorter ones are
	// in single.
	byPair [1 << 16]uint32
	// pairs has a bit set for each pair byPair holds keywords for: most
	// bytes of a text start none, and this 8 KB set stays in the cache
	// where byPair's 256 KB does not.
	pairs  [1 << 16 / 64]uint64
	idx    []uint16
	single []int
}

func newKeywords(all []string) *keywords {
	k := &keywords{}
	seen := map[string]bool{}
	pairs := map[uint16][]uint16{}
	for _, w := range all {
		w = strings.ToLower(w)
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		i := len(k.list)
		k.list = append(k.list, w)
		if len(w) == 1 {
			k.single = append(k.single, i)
			continue
		}
		pair := uint16(w[0])<<8 | uint16(w[1])
		pairs[pair] = append(pairs[pair], uint16(i))
	}
	for pair, ids := range pairs {
		k.byPair[pair] = uint32(len(k.idx))<<16 | uint32(len(ids))
		k.pairs[pair/64] |= 1 << (pair % 64)
		k.idx = append(k.idx, ids...)
	}
	return k
}

// index returns the index of keyword w, or -1.
func (k *keywords) index(w string) int {
	for i, x := range k.list {
		if x == w {
			return i
		}
	}
	return -1
}

// scan returns, for each keyword by index, the offsets where it occurs in
// lower, a text in ASCII lower case; nil for a keyword that does not, and
// nil in all when none does. Most texts scanned (a request's strings one
// by one, a file's lines) hold no keyword: they cost no allocation.
func (k *keywords) scan(lower string) [][]int {
	var hits [][]int
	hit := func(i, off int) {
		if hits == nil {
			hits = make([][]int, len(k.list))
		}
		hits[i] = append(hits[i], off)
	}
	for _, i := range k.single {
		w := k.list[i]
		for off := 0; ; {
			j := strings.Index(lower[off:], w)
			if j < 0 {
				break
			}
			hit(i, off+j)
			off += j + 1
		}
	}
	for p := 0; p+1 < len(lower); p++ {
		pair := uint16(lower[p])<<8 | uint16(lower[p+1])
		if k.pairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		span := k.byPair[pair]
		for _, i := range k.idx[span>>16 : span>>16+span&0xffff] {
			w := k.list[i]
			if len(w) == 2 || strings.HasPrefix(lower[p:], w) {
				hit(int(i), p)
			}
		}
	}
	return hits
}

// any reports whether one of the keywords occurs in lower, a text in
// lower case.
func (k *keywords) any(lower string) bool {
	for _, i := range k.single {
		if strings.Contains(lower, k.list[i]) {
			return true
		}
	}
	for p := 0; p+1 < len(lower); p++ {
		pair := uint16(lower[p])<<8 | uint16(lower[p+1])
		if k.pairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		span := k.byPair[pair]
		for _, i := range k.idx[span>>16 : span>>16+span&0xffff] {
			if w := k.list[i]; len(w) == 2 || strings.HasPrefix(lower[p:], w) {
				return true
			}
		}
	}
	return false
}

// asciiLower lowers ASCII letters only, so that byte offsets in the result
// are offsets in s; the keywords are ASCII.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	// b is not written again: the string shares it rather than copying
	// it a second time (a file of a large change is megabytes), as
	// strings.Builder does.
	return unsafe.String(unsafe.SliceData(b), len(b))
}
