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

	"github.com/klauspost/compress/zstd"
)

// Counting with tiktoken's encodings without building an encoder.
//
// tiktoken-go's encoder is built from a map of the encoding's ~200,000
// ranks, and builds a reverse map and a sorted token list besides, which
// only decoding uses: about 166 ms and 21 MB on every start, for a review
// of any size. Counting needs the ranks alone, so bpegen (go generate)
// writes each encoding's tokens, from the offline loader's copies, in
// rank order and compressed with zstd (1.3 MB for both, against 7.4 MB
// as the loader's base64 and 6.4 MB as ready-made hash tables); the first
// exact count decompresses its encoding and hashes its tokens into an
// open-addressing table, a few milliseconds, and a review far from every
// limit never does (see Counter.Bounds). Counting is tiktoken's: the same
// pre-tokenizer (as code, split.go), and the same byte-pair merge per
// piece; a test checks every rank against the offline loader and counts
// against tiktoken-go's encoder.
var (
	//go:embed bpe/o200k_base.zst
	o200kTable []byte
	//go:embed bpe/cl100k_base.zst
	cl100kTable []byte
)

// tables are the embedded tables by encoding.
var tables = map[string][]byte{O200k: o200kTable, CL100k: cl100kTable}

// bpe counts the tokens of one encoding.
type bpe struct {
	split splitter
	n     uint32   // tokens; a token's index is its rank
	mask  uint32   // len(slots) - 1
	off   []uint32 // n+1 offsets into blob: token r is blob[off[r]:off[r+1]]
	slots []uint32 // 0 empty, else rank+1
	blob  []byte
}

// encoders holds one bpe per encoding for the whole process.
var encoders sync.Map // encoding name → func() (*bpe, error)

// encoder returns the process's bpe for an encoding, building it on
// first use.
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

// maxTable bounds an encoding's decompressed form: o200k's is 1.6 MB.
const maxTable = 16 << 20

// readTable decompresses the form bpegen writes and builds its lookup
// table:
//
//	"BPE2", n (tokens) as a little-endian uint32
//	n bytes: the length of each token, in rank order
//	the tokens' bytes, in rank order
func readTable(data []byte) (*bpe, error) { return readTableIn(data, newTableArena(data)) }

// readTableIn is readTable with the table laid out in mem, which it frees
// when it refuses the table.
func readTableIn(data []byte, mem *tableArena) (b *bpe, err error) {
	defer func() {
		if err != nil {
			mem.free()
		}
	}()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxTable))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(data, mem.bytes(mem.size))
	if err != nil {
		return nil, fmt.Errorf("damaged BPE table: %w", err)
	}
	bad := errors.New("damaged BPE table")
	if len(raw) < 8 || string(raw[:4]) != "BPE2" {
		return nil, bad
	}
	n := binary.LittleEndian.Uint32(raw[4:])
	if uint64(len(raw)) < 8+uint64(n) || n == 0 {
		return nil, bad
	}
	lens, blob := raw[8:8+n], raw[8+n:]
	mem.settle(n)
	b = &bpe{n: n, off: mem.words(int(n) + 1), blob: blob}
	var at uint32
	for r, l := range lens {
		b.off[r] = at
		at += uint32(l)
	}
	b.off[n] = at
	if int(at) != len(blob) {
		return nil, bad
	}
	slots := slotsFor(n)
	b.slots, b.mask = mem.words(int(slots)), slots-1
	for r := range n {
		i := hash(b.token(r)) & b.mask
		for b.slots[i] != 0 {
			i = (i + 1) & b.mask
		}
		b.slots[i] = r + 1
	}
	return b, nil
}

// hash is FNV-1a, inlined: the hash/fnv interface would allocate on
// every lookup. It reads a token of the table or a piece of the text
// counted, without copying either.
func hash[T string | []byte](t T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(t); i++ {
		h ^= uint32(t[i])
		h *= 16777619
	}
	return h
}

// token returns the bytes of the token of rank r.
func (b *bpe) token(r uint32) []byte {
	return b.blob[b.off[r]:b.off[r+1]]
}

// rank returns the rank of token t, if it is one.
func (b *bpe) rank(t string) (int, bool) {
	for i := hash(t) & b.mask; ; i = (i + 1) & b.mask {
		e := b.slots[i]
		if e == 0 {
			return 0, false
		}
		if string(b.token(e-1)) == string(t) {
			return int(e - 1), true
		}
	}
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
	for i := 0; i < len(s); {
		e := b.split(s, i)
		n += b.pieceCount(s[i:e])
		i = e
	}
	return n
}

// pieceCount counts one pre-tokenized piece by tiktoken's byte-pair merge:
// the adjacent pair whose join has the lowest rank is merged until no
// join is a token.
func (b *bpe) pieceCount(p string) int {
	if len(p) <= 1 {
		return len(p)
	}
	if _, ok := b.rank(p); ok {
		return 1
	}
	type part struct{ start, rank int }
	// Most pieces are a word or a number of a few bytes: their parts
	// live on the stack, where an allocation each took a fifth of the
	// time of counting code.
	var small [24]part
	parts := small[:0]
	if len(p)+1 > len(small) {
		parts = make([]part, 0, len(p)+1)
	}
	parts = parts[:len(p)+1]
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
