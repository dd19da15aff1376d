package diffctx

import (
	"encoding/json"

	"github.com/reviewdev/review/internal/text"
)

// Paths in JSON are written as text.JSONPath writes them: a path that is
// not UTF-8, which a JSON string cannot carry, in the quoted form the
// context shows and the tools take back.

// fileJSON is File as JSON shows it, without the methods that would recurse.
type fileJSON File

// MarshalJSON writes f with its paths as text.JSONPath writes them.
func (f File) MarshalJSON() ([]byte, error) { return json.Marshal(f.jsonView()) }

func (f *File) jsonView() fileJSON {
	j := fileJSON(*f)
	j.Path, j.OldPath = text.JSONPath(f.Path), text.JSONPath(f.OldPath)
	return j
}

type entryJSON Entry

// MarshalJSON writes e with its paths as text.JSONPath writes them.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON(e)
	j.Path, j.OldPath, j.Group = text.JSONPath(e.Path), text.JSONPath(e.OldPath), text.JSONPath(e.Group)
	return json.Marshal(j)
}

type partJSON Part

// MarshalJSON writes p with its path as text.JSONPath writes it. Units are
// recorded with a run and read back by a follow-up question, so the path
// must come back byte for byte.
func (p Part) MarshalJSON() ([]byte, error) {
	j := partJSON(p)
	j.Path = text.JSONPath(p.Path)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *Part) UnmarshalJSON(b []byte) error {
	var j partJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Part(j)
	p.Path = text.PathFromJSON(j.Path)
	return nil
}
