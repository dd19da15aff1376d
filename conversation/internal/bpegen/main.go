// Command bpegen writes the BPE ranks of the tiktoken encodings review uses
// in the compact form conversation embeds (see conversation/bpe.go), from
// the offline loader's copies. Run it with go generate in conversation.
package main

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/klauspost/compress/zstd"
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

// write stores an encoding's tokens in rank order, compressed with zstd:
//
//	"BPE2", n (tokens) as a little-endian uint32
//	n bytes: the length of each token
//	the tokens' bytes
//
// The lengths come first, apart from the bytes, because they compress
// far better together. Ranks must run from 0 to n-1 without gaps, so a
// token's index is its rank, and no token may be longer than 255 bytes
// (tiktoken's longest are 128); write refuses an encoding otherwise.
func write(name string) error {
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return err
	}
	tokens := slices.SortedFunc(maps.Keys(ranks), func(a, b string) int { return cmp.Compare(ranks[a], ranks[b]) })
	out := binary.LittleEndian.AppendUint32([]byte("BPE2"), uint32(len(tokens)))
	for i, t := range tokens {
		if ranks[t] != i {
			return fmt.Errorf("%s: ranks are not 0 to %d without gaps (rank %d at %d)", name, len(tokens)-1, ranks[t], i)
		}
		if len(t) == 0 || len(t) > 255 {
			return fmt.Errorf("%s: token %d is %d bytes long; the form holds 1 to 255", name, i, len(t))
		}
		out = append(out, byte(len(t)))
	}
	for _, t := range tokens {
		out = append(out, t...)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	return os.WriteFile("bpe/"+name+".zst", enc.EncodeAll(out, nil), 0o644)
}
