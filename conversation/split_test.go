package conversation

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// patterns are the encodings' pre-tokenizers, as tiktoken (and
// tiktoken-go) define them.
var patterns = map[string]string{
	O200k: `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	CL100k: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// compiled are the patterns, compiled once.
var compiled = map[string]*regexp2.Regexp{
	O200k:  regexp2.MustCompile(patterns[O200k], regexp2.None),
	CL100k: regexp2.MustCompile(patterns[CL100k], regexp2.None),
}

// oracle splits s with the encoding's pattern, run by regexp2 as
// tiktoken-go runs it.
func oracle(t testing.TB, enc, s string) []string {
	t.Helper()
	re := compiled[enc]
	runes := []rune(s)
	var out []string
	m, err := re.FindRunesMatch(runes)
	for m != nil && err == nil {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pieces splits s with the hand-written pre-tokenizer.
func pieces(enc, s string) []string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	var out []string
	for i := 0; i < len(s); {
		e := splitters[enc](s, i)
		if e <= i || e > len(s) {
			panic("no progress")
		}
		out = append(out, s[i:e])
		i = e
	}
	return out
}

func samePieces(t *testing.T, enc, s string) bool {
	t.Helper()
	want, got := oracle(t, enc, s), pieces(enc, s)
	if strings.Join(want, "\x00") != strings.Join(got, "\x00") {
		t.Errorf("%s: %q\n got %q\nwant %q", enc, s, got, want)
		return false
	}
	return true
}

// alphabet has a rune of each kind the patterns tell apart, and the
// lookalikes of the contractions' letters.
var alphabet = []rune("aZs'tTrRevVEmMlLdD' \t\n\r\v\f/.,;:!?-_()[]{}<>\"#$%&*+=@^`|~\\" +
	"0123456789" + "\u00a0\u2028\u2029\u3000\u0085\u200b\u1680" + // spaces (and ZWSP, not one)
	"\u00e9\u00c9\u00df\u01c5\u02b0\u00aa\u05d0\u0301\u0308\u093f\u0e31" + // Ll Lu Lt Lm Lo marks
	"\u4e2d\u6587\u65e5\u672c\u3042\uac00" + // CJK, kana, hangul
	"\u0660\u00b2\u2167\u00bd\u0966" + // other numbers
	"\u017f\u212a\u0130\u0131" + // long s, Kelvin, dotted and dotless i
	"\U0001F600\U0001F44D\u200d\ufe0f\u2014\u00b7\u2019\ufffd")

// TestSplitMatchesPattern checks the pre-tokenizers against their patterns
// on code, prose in several scripts, emoji, long runs and random strings
// of runes of every kind.
func TestSplitMatchesPattern(t *testing.T) {
	fixed := []string{
		"", "a", " ", "  ", "\n", "\r\n", " \n ", "a  b", "a \n\n b", "x   ", "   x",
		"func (s *Store) Put(run string, step int) (string, error) {\n\treturn s.db.Update(func(txn *badger.Txn) error {\n",
		"don't I'LL we'Re they'VE it's SHE'D 'll ' s", "HTTPServer URLs iOS McDonald's ÉCOLE école",
		"日本語のテキストと English mixed 中文", "مرحبا بالعالم", "नमस्ते दुनिया", "😀👍🏽 👨‍👩‍👧 ✔️",
		"1234567 12.5e10 ٠١٢٣٤ ²³", "a//b\n//\n/", "  +- \r\n\r\n", strings.Repeat("a", 300),
		strings.Repeat(" ", 300) + "x", strings.Repeat("ab ", 50), "\xff\xfe invalid \xc3", "ǅungla ʰaaa ªb",
	}
	for _, enc := range []string{O200k, CL100k} {
		for _, s := range fixed {
			samePieces(t, enc, s)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 3000 {
			b := make([]rune, r.IntN(24))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			if !samePieces(t, enc, string(b)) {
				break
			}
		}
	}
}

// FuzzSplit holds the pre-tokenizers to their patterns on any input.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"don't", "a  b\n", "日本 😀", "x/\n/", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		samePieces(t, O200k, s)
		samePieces(t, CL100k, s)
	})
}
