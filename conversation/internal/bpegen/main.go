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

// write stores the ranks of an encoding in rank order, each as the
// uvarint gap from the previous rank, the uvarint length of the token and
// its bytes.
func write(name string) error {
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return err
	}
	tokens := slices.SortedFunc(maps.Keys(ranks), func(a, b string) int { return cmp.Compare(ranks[a], ranks[b]) })
	var out []byte
	prev := -1
	for _, t := range tokens {
		out = binary.AppendUvarint(out, uint64(ranks[t]-prev))
		out = binary.AppendUvarint(out, uint64(len(t)))
		out = append(out, t...)
		prev = ranks[t]
	}
	return os.WriteFile("bpe/"+name+".bin", out, 0o644)
}
