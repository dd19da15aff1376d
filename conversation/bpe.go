package conversation

//go:generate go run ./internal/bpegen

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// Counting with tiktoken's encodings without building an encoder.
//
// tiktoken-go's encoder is built from a map of the encoding's ~200,000
// ranks, and builds a reverse map and a sorted token list besides, which
// only decoding uses: about 166 ms and 21 MB on every start, for a review
// of any size. Counting needs the ranks alone, so bpegen (go generate)
// writes them, from the offline loader's copies, as ready-made hash tables
// that are embedded and read in place: nothing is built but the
// pre-tokenizer's regular expression. Counting is tiktoken's: the same
// pre-tokenizer (as code, split.go), and the same byte-pair merge per piece; a test
// checks every rank against the offline loader and counts against
// tiktoken-go's encoder.
//
// The tables, embedded as variables so they are read where they lie,
// never copied (embed.FS would copy each on reading).
var (
	//go:embed bpe/o200k_base.tab
	o200kTable []byte
	//go:embed bpe/cl100k_base.tab
	cl100kTable []byte
)

// tables are the embedded tables by encoding.
var tables = map[string][]byte{O200k: o200kTable, CL100k: cl100kTable}

// bpe counts the tokens of one encoding.
type bpe struct {
	split splitter
	n     uint32 // tokens; a token's index is its rank
	mask  uint32 // slots - 1
	off   []byte // n+1 little-endian uint32 offsets into blob
	slots []byte // little-endian uint32: 0 empty, else rank+1
	blob  []byte
}

// encoders holds one bpe per encoding for the whole process.
var encoders sync.Map // encoding name → func() (*bpe, error)

// encoder returns the process's bpe for an encoding, reading it on first
// use.
func encoder(name string) (*bpe, error) {
	f, _ := encoders.LoadOrStore(name, sync.OnceValues(func() (*bpe, error) {
		split, ok := splitters[name]
		if !ok {
			return nil, fmt.Errorf("tiktoken encoding %s is not built in", name)
		}
		b, err := readTable(tables[name])
		if err != nil {
			return nil, fmt.Errorf("tiktoken encoding %s: %w", name, err)
		}
		b.split = split
		return b, nil
	}))
	return f.(func() (*bpe, error))()
}

// readTable checks the form bpegen writes and returns it in place.
func readTable(data []byte) (*bpe, error) {
	bad := errors.New("damaged BPE table")
	if len(data) < 16 || string(data[:4]) != "BPE1" {
		return nil, bad
	}
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(data[i:]) }
	n, slots, size := u(4), u(8), u(12)
	if slots == 0 || slots&(slots-1) != 0 || slots <= n {
		return nil, bad
	}
	offEnd := 16 + 4*(uint64(n)+1)
	slotEnd := offEnd + 4*uint64(slots)
	if uint64(len(data)) != slotEnd+uint64(size) {
		return nil, bad
	}
	// Only the header is checked here: checking every offset and slot
	// would read the whole table (3 MB for o200k) at every start. The
	// lookups check what they read (token, rank), and TestTables holds
	// every entry to the offline loader's ranks.
	b := &bpe{n: n, mask: slots - 1, off: data[16:offEnd], slots: data[offEnd:slotEnd], blob: data[slotEnd:]}
	return b, nil
}

// token returns the bytes of the token of rank r.
func (b *bpe) token(r uint32) []byte {
	lo, hi := binary.LittleEndian.Uint32(b.off[4*r:]), binary.LittleEndian.Uint32(b.off[4*r+4:])
	if lo > hi || hi > uint32(len(b.blob)) {
		return nil // a damaged table matches nothing rather than panics
	}
	return b.blob[lo:hi]
}

// rank returns the rank of token t, if it is one.
func (b *bpe) rank(t []byte) (int, bool) {
	h := uint32(2166136261) // FNV-1a, as bpegen hashes
	for _, c := range t {
		h ^= uint32(c)
		h *= 16777619
	}
	// At most every slot once: a table is never full, but a damaged one
	// could be.
	for i, probes := h&b.mask, uint32(0); probes <= b.mask; i, probes = (i+1)&b.mask, probes+1 {
		e := binary.LittleEndian.Uint32(b.slots[4*i:])
		if e == 0 || e > b.n {
			return 0, false
		}
		if string(b.token(e-1)) == string(t) {
			return int(e - 1), true
		}
	}
	return 0, false
}

// count returns the number of tokens in s, as tiktoken's encode_ordinary
// would return them.
func (b *bpe) count(s string) int {
	if !utf8.ValidString(s) {
		// As tiktoken-go reads it: each byte that is not UTF-8 becomes
		// U+FFFD.
		s = string([]rune(s))
	}
	n := 0
	var piece []byte
	for i := 0; i < len(s); {
		e := b.split(s, i)
		piece = append(piece[:0], s[i:e]...)
		n += b.pieceCount(piece)
		i = e
	}
	return n
}

// pieceCount counts one pre-tokenized piece by tiktoken's byte-pair merge:
// the adjacent pair whose join has the lowest rank is merged until no
// join is a token.
func (b *bpe) pieceCount(p []byte) int {
	if len(p) <= 1 {
		return len(p)
	}
	if _, ok := b.rank(p); ok {
		return 1
	}
	type part struct{ start, rank int }
	parts := make([]part, len(p)+1)
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	rankOf := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := b.rank(p[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankOf(i, 0)
	}
	for len(parts) > 1 {
		low, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < low {
				low, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rankOf(at, 1)
		if at > 0 {
			parts[at-1].rank = rankOf(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts) - 1
}
