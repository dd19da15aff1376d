package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ciBlock is the one YAML block of docs/ci.md that starts with the
// comment header ("# azure-pipelines.yml"): the file a reader copies.
func ciBlock(t *testing.T, header string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		if y, _, ok := strings.Cut(block, "\n```"); ok && strings.HasPrefix(y, header+"\n") {
			blocks = append(blocks, y)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%d %s blocks in docs/ci.md, want 1", len(blocks), strings.TrimPrefix(header, "# "))
	}
	return blocks[0]
}

// compileSchema compiles a schema vendored in testdata/schemas, whole.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
