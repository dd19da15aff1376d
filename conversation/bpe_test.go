package conversation

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestEmbeddedRanks checks the embedded tables against the offline
// loader's ranks, every token: run go generate in conversation when this
// fails after an upgrade of the loader.
func TestEmbeddedRanks(t *testing.T) {
	for _, name := range []string{O200k, CL100k} {
		want, err := loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		b, err := encoder(name)
		if err != nil {
			t.Fatal(err)
		}
		if int(b.n) != len(want) {
			t.Errorf("%s: %d tokens embedded, the offline loader has %d: run go generate ./conversation", name, b.n, len(want))
		}
		bad := 0
		for tok, r := range want {
			if got, ok := b.rank(tok); !ok || got != r {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d ranks differ from the offline loader's: run go generate ./conversation", name, bad)
		}
		if _, ok := b.rank("\x00no such token\xff\xfe"); ok {
			t.Errorf("%s: a made-up token has a rank", name)
		}
	}
	if _, err := encoder("p50k_base"); err == nil {
		t.Error("an encoding that is not built in loaded")
	}
}

// TestReadTableDamaged: a table that does not decompress, or whose
// lengths and bytes disagree, is refused, never half read.
func TestReadTableDamaged(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	pack := func(raw string) []byte { return enc.EncodeAll([]byte(raw), nil) }
	good := cl100kTable
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	for name, data := range map[string][]byte{
		"empty":       nil,
		"not zstd":    []byte("BPE2\x01\x00\x00\x00\x01a"),
		"truncated":   good[:len(good)-1],
		"flipped":     flipped,
		"magic":       pack("BPE1\x01\x00\x00\x00\x01a"),
		"no tokens":   pack("BPE2\x00\x00\x00\x00"),
		"short":       pack("BPE2\x03\x00\x00\x00\x01"),
		"blob short":  pack("BPE2\x02\x00\x00\x00\x01\x02ab"),
		"blob longer": pack("BPE2\x01\x00\x00\x00\x01ab"),
	} {
		if _, err := readTable(data); err == nil {
			t.Errorf("%s: readTable accepted damaged data", name)
		}
	}
	b, err := readTable(pack("BPE2\x02\x00\x00\x00\x01\x02abc"))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := b.rank("bc"); !ok || r != 1 {
		t.Errorf("rank(bc) = %d, %v; want 1", r, ok)
	}
}

// countCorpus is text of the kinds a review counts: code, prose, CJK,
// emoji, white space of every kind, contractions, numbers, invalid UTF-8.
var countCorpus = []string{
	"hello world",
	"func (s *Store) Get(ref string) ([]byte, error) {\n\tif ref == \"\" {\n\t\treturn nil, ErrNotFound\n\t}\n",
	"I'm sure they've said it's DONE'S; we'll see. HTTPServer XMLHttpRequest",
	"数据库连接失败，请检查配置。日本語のテキストも。한국어 텍스트",
	"emoji 🎉🔥👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵",
	"   \n\n\t\t  \r\n x  \u00a0y\u2003z   ",
	"1234567890 3.14159 0xDEADBEEF 1e-9 ١٢٣",
	"diff --git a/x b/x\n@@ -1,3 +1,4 @@\n-old line\n+new line\n context\n",
	"bad \xff\xfe utf8 \xc3 here",
	"/usr/local/bin:/usr/bin // comment /* block */ <tag attr=\"v\">",
	strings.Repeat("a", 300) + " " + strings.Repeat("ab", 100),
	"",
}

// TestCountMatchesTiktoken holds the counts to tiktoken-go's encoder on the
// corpus and on random text.
func TestCountMatchesTiktoken(t *testing.T) {
	for _, name := range []string{O200k, CL100k} {
		ref, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := encoder(name)
		if err != nil {
			t.Fatal(err)
		}
		texts := append([]string(nil), countCorpus...)
		rng := rand.New(rand.NewPCG(1, 2))
		alphabet := []rune("abcXYZ019 _-.,;:'\"\n\t\r()[]{}<>/\\!?@#$%^&*=+éßøЖж中文字日本🎉\u00a0\u200b")
		for range 300 {
			r := make([]rune, rng.IntN(120))
			for i := range r {
				r[i] = alphabet[rng.IntN(len(alphabet))]
			}
			texts = append(texts, string(r))
		}
		for _, s := range texts {
			if got, want := b.count(s), len(ref.EncodeOrdinary(s)); got != want {
				t.Errorf("%s: count(%q) = %d, tiktoken-go %d", name, s, got, want)
			}
		}
	}
}

func init() {
	// The reference encoder in tests reads the offline loader's ranks.
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
}

func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range countCorpus {
		f.Add(s)
	}
	ref, err := tiktoken.GetEncoding(O200k)
	if err != nil {
		f.Fatal(err)
	}
	b, err := encoder(O200k)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 || !utf8.ValidString(s) && len(s) > 512 {
			return // long pieces are quadratic in both
		}
		if got, want := b.count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Errorf("count(%q) = %d, tiktoken-go %d", s, got, want)
		}
	})
}

// BenchmarkEncoderLoad is what the first exact count of a run costs:
// decompressing o200k and hashing its tokens.
// BenchmarkEncoderLoad reads o200k's table as a run does once, in a block
// mapped afresh each time, so that its pages are touched for the first
// time as in a new process (Go's heap would hand back the last one's).
func BenchmarkEncoderLoad(b *testing.B) {
	for b.Loop() {
		mem := newTableArena(o200kTable)
		if _, err := readTableIn(o200kTable, mem); err != nil {
			b.Fatal(err)
		}
		mem.free()
	}
}

func BenchmarkOfflineLoaderLoad(b *testing.B) {
	for b.Loop() {
		if _, err := loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken"); err != nil {
			b.Fatal(err)
		}
	}
}
