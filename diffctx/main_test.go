package diffctx

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/gittest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMain isolates git from the user's configuration and pins identities
// and dates, so commits, and with them submodule hashes, are reproducible.
func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }

// repo is a git repository in a temporary directory.
type repo struct {
	*gittest.Repo
	t testing.TB
}

// newRepo creates a repository on branch main.
func newRepo(t testing.TB) *repo {
	t.Helper()
	return &repo{gittest.New(t), t}
}

// git runs git in the repository and returns its standard output.
func (r *repo) git(args ...string) string { return r.Git(args...) }

// write creates or replaces a file, creating its directories.
func (r *repo) write(name, content string) { r.Write(map[string]string{name: content}) }

func (r *repo) remove(name string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.Dir, name)); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits every change in the work tree.
func (r *repo) commit(msg string) { r.Commit(msg) }

// branch starts branch feature from the current commit.
func (r *repo) branch() { r.Git("checkout", "-q", "-b", "feature") }

// goldenFile is a File as JSON writes it, with its hunks, for golden JSON.
type goldenFile struct {
	fileJSON
	Hunks []Hunk `json:"hunks"`
}

func goldenJSON(t testing.TB, files []*File) []byte {
	t.Helper()
	g := make([]goldenFile, len(files))
	for i, f := range files {
		g[i] = goldenFile{fileJSON: f.jsonView(), Hunks: f.Hunks}
	}
	b, err := json.MarshalIndent(map[string]any{"files": g}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// golden compares got with the golden file, or rewrites it with -update.
func golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./diffctx -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test ./diffctx -update and review the diff):\n%s",
			path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return "(same lines)"
}
