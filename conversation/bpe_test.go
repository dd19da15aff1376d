package conversation

import (
	"maps"
	"testing"

	loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestEmbeddedRanks checks the pre-parsed ranks against the offline
// loader's: run go generate in conversation when this fails after an
// upgrade of the loader.
func TestEmbeddedRanks(t *testing.T) {
	for _, name := range []string{O200k, CL100k} {
		want, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		got, err := bpeLoader{}.LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/" + name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: the embedded ranks differ from the offline loader's (%d and %d entries): run go generate ./conversation", name, len(got), len(want))
		}
	}
	if _, err := (bpeLoader{}).LoadTiktokenBpe("p50k_base.tiktoken"); err == nil {
		t.Error("an encoding that is not built in loaded")
	}
}

func TestParseRanksDamaged(t *testing.T) {
	for _, data := range [][]byte{{0}, {1}, {1, 5, 'a'}, {1, 0}, {0x80}} {
		if _, err := parseRanks(data); err == nil {
			t.Errorf("parseRanks(%v) accepted damaged data", data)
		}
	}
}

func BenchmarkEncoderLoad(b *testing.B) {
	for b.Loop() {
		data, _ := bpeFiles.ReadFile("bpe/o200k_base.bin")
		if _, err := parseRanks(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOfflineLoaderLoad(b *testing.B) {
	for b.Loop() {
		if _, err := loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken"); err != nil {
			b.Fatal(err)
		}
	}
}
