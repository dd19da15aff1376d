package diffctx

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
)

// A path git reports is bytes, and need not be UTF-8, which a JSON string
// cannot carry: encoding/json would put U+FFFD in place of the bytes, and
// the name read back would open nothing. Such a path is written in JSON in
// the quoted form the diff context shows and the tools and findings accept
// (text.QuotePath: a Go-quoted string, "caf\xe9.txt"), so every path in a
// document can be handed back as it is. A UTF-8 path is written as it is.

// jsonPath is how p is written in JSON.
func jsonPath(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	return text.QuotePath(p)
}

// pathFromJSON reads a path jsonPath wrote.
func pathFromJSON(s string) string {
	if p := text.UnquotePath(s); p != s && !utf8.ValidString(p) {
		return p
	}
	return s
}

// fileJSON is File as JSON shows it, without the methods that would recurse.
type fileJSON File

// MarshalJSON writes f with its paths as jsonPath writes them.
func (f File) MarshalJSON() ([]byte, error) { return json.Marshal(f.jsonView()) }

func (f *File) jsonView() fileJSON {
	j := fileJSON(*f)
	j.Path, j.OldPath = jsonPath(f.Path), jsonPath(f.OldPath)
	return j
}

type entryJSON Entry

// MarshalJSON writes e with its paths as jsonPath writes them.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON(e)
	j.Path, j.OldPath, j.Group = jsonPath(e.Path), jsonPath(e.OldPath), jsonPath(e.Group)
	return json.Marshal(j)
}

type partJSON Part

// MarshalJSON writes p with its path as jsonPath writes it. Units are
// recorded with a run and read back by a follow-up question, so the path
// must come back byte for byte.
func (p Part) MarshalJSON() ([]byte, error) {
	j := partJSON(p)
	j.Path = jsonPath(p.Path)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *Part) UnmarshalJSON(b []byte) error {
	var j partJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Part(j)
	p.Path = pathFromJSON(j.Path)
	return nil
}
