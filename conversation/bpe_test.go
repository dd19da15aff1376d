package conversation

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

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
			if got, ok := b.rank([]byte(tok)); !ok || got != r {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d ranks differ from the offline loader's: run go generate ./conversation", name, bad)
		}
		if _, ok := b.rank([]byte("\x00no such token\xff\xfe")); ok {
			t.Errorf("%s: a made-up token has a rank", name)
		}
	}
	if _, err := encoder("p50k_base"); err == nil {
		t.Error("an encoding that is not built in loaded")
	}
}

func TestReadTableDamaged(t *testing.T) {
	good := cl100kTable
	for name, data := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("BPE0"), good[4:]...),
		"truncated": good[:len(good)-1],
		"longer":    append(append([]byte(nil), good...), 0),
	} {
		if _, err := readTable(data); err == nil {
			t.Errorf("%s: readTable accepted damaged data", name)
		}
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

func BenchmarkEncoderLoad(b *testing.B) {
	for b.Loop() {
		if _, err := readTable(o200kTable); err != nil {
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

// TestDamagedEntries: readTable checks only the header; a damaged slot or
// offset further in makes lookups miss, never panic.
func TestDamagedEntries(t *testing.T) {
	data := append([]byte(nil), cl100kTable...)
	n := binary.LittleEndian.Uint32(data[4:])
	offEnd := 16 + 4*(int(n)+1)
	for i := 16; i < len(data) && i < offEnd+1<<20; i += 97 {
		data[i] = 0xff // offsets and slots, a byte here and there
	}
	b, err := readTable(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range countCorpus {
		b.split = splitCL100k
		_ = b.count(s) // must not panic
	}
}
