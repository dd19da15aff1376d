package diffctx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

// TestJSONPaths checks that a path that is not UTF-8 survives JSON: written
// in the quoted form the context shows, which the tools take back
// (text.UnquotePath, as their path sandbox reads it), and read back by the
// run record byte for byte.
func TestJSONPaths(t *testing.T) {
	for _, p := range []string{"a.go", "new\nline.txt", "caf\xe9.txt", "dir\xff/x.go", `"quoted".go`, "é.go"} {
		parts := []Part{{Path: p, First: 1, Last: 2}}
		b, err := json.Marshal(parts)
		if err != nil {
			t.Fatal(err)
		}
		var back []Part
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if len(back) != 1 || back[0] != parts[0] {
			t.Errorf("Part %q: round trip %s gives %+v", p, b, back)
		}

		var entry struct {
			Path  string `json:"path"`
			Fetch string `json:"fetch"`
		}
		b, err = json.Marshal(Entry{Path: p, Fetch: fetchCall(p)})
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &entry); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(entry.Path, '\uFFFD') || text.UnquotePath(entry.Path) != p {
			t.Errorf("Entry %q: JSON path %q does not name the file", p, entry.Path)
		}
		if entry.Path != displayPath(p) && entry.Path != p {
			t.Errorf("Entry %q: JSON path %q is neither the path nor the form the context shows (%q)", p, entry.Path, displayPath(p))
		}
		// The fetch call's argument, as the model sends it back.
		var call struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(entry.Fetch, "get_file_diff ")), &call); err != nil {
			t.Fatalf("Entry %q: fetch %q: %v", p, entry.Fetch, err)
		}
		if text.UnquotePath(call.Path) != p {
			t.Errorf("Entry %q: fetch %q opens %q", p, entry.Fetch, text.UnquotePath(call.Path))
		}
	}
}
