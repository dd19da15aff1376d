// Command bpegen writes the BPE ranks of the tiktoken encodings review uses
// as the ready-made hash tables conversation embeds (see conversation/bpe.go),
// from the offline loader's copies. Run it with go generate in conversation.
package main

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"math/bits"
	"os"
	"slices"

	loader "github.com/pkoukk/tiktoken-go-loader"
)

func main() {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		if err := write(name); err != nil {
			fmt.Fprintln(os.Stderr, "bpegen:", err)
			os.Exit(1)
		}
	}
}

// write stores an encoding's tokens as a table that needs no building at
// run time, all integers little-endian uint32:
//
//	"BPE1", n (tokens), slots (a power of two), blob length
//	n+1 offsets into the blob: token r is blob[off[r]:off[r+1]]
//	slots: 0 for an empty slot, else r+1, open addressing with linear
//	probing from fnv32a(token) & (slots-1)
//	the blob: every token's bytes in rank order
//
// Ranks must run from 0 to n-1 without gaps, so a token's index is its
// rank; write refuses an encoding whose ranks do not.
func write(name string) error {
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return err
	}
	tokens := slices.SortedFunc(maps.Keys(ranks), func(a, b string) int { return cmp.Compare(ranks[a], ranks[b]) })
	for i, t := range tokens {
		if ranks[t] != i {
			return fmt.Errorf("%s: ranks are not 0 to %d without gaps (rank %d at %d)", name, len(tokens)-1, ranks[t], i)
		}
	}
	n := len(tokens)
	slots := 1 << bits.Len(uint(2*n)) // load factor under a half
	table := make([]uint32, slots)
	var blob []byte
	off := make([]uint32, 0, n+1)
	for r, t := range tokens {
		off = append(off, uint32(len(blob)))
		blob = append(blob, t...)
		h := fnv.New32a()
		h.Write([]byte(t))
		i := h.Sum32() & uint32(slots-1)
		for table[i] != 0 {
			i = (i + 1) & uint32(slots-1)
		}
		table[i] = uint32(r + 1)
	}
	off = append(off, uint32(len(blob)))
	out := []byte("BPE1")
	for _, v := range []uint32{uint32(n), uint32(slots), uint32(len(blob))} {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	for _, v := range off {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	for _, v := range table {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, blob...)
	return os.WriteFile("bpe/"+name+".tab", out, 0o644)
}
