package diffctx

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/redact"
)

// A token in a path reads as its placeholder in every path of the diff,
// the index of files included; a path the change adds with one is a leak
// of its own, at line 0, and one that was there before is not.
func TestRedactPaths(t *testing.T) {
	token := "ghp_" + strings.Repeat("Zx81Kq4Wm2Lp", 3)
	r := redact.New(redact.Options{})
	placeholder := redact.Placeholder("github-pat", token)
	d := &Diff{
		Files: []*File{
			{Path: "config/" + token + ".env", Status: Added},
			{Path: "keys/" + token, OldPath: "keys/" + token, Status: Modified},
			{Path: "notes/" + token + ".txt", OldPath: "notes/old.txt", Status: Renamed},
			{Path: "main.go", OldPath: "main.go", Status: Modified},
		},
		Earlier:  []*File{{Path: "docs/" + token + ".md", Status: Added}},
		Warnings: []string{"could not rename docs/" + token + ".md"},
	}
	if d.File("main.go") == nil {
		t.Fatal("main.go is not indexed")
	}
	leaks := d.RedactPaths(r)
	var got []string
	for _, l := range leaks {
		if l.Line != 0 || l.Rule != "github-pat" || l.Confidence != redact.High || l.Placeholder != placeholder {
			t.Errorf("leak %+v", l)
		}
		got = append(got, l.Path)
	}
	want := []string{"config/" + placeholder + ".env", "notes/" + placeholder + ".txt"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("leaks at %v, want %v", got, want)
	}
	for _, f := range append(d.Files, d.Earlier...) {
		if strings.Contains(f.Path+f.OldPath, token) {
			t.Errorf("path %q (from %q) holds the token", f.Path, f.OldPath)
		}
	}
	if strings.Contains(d.Warnings[0], token) {
		t.Errorf("warning %q holds the token", d.Warnings[0])
	}
	if d.File("config/"+placeholder+".env") == nil || d.File("config/"+token+".env") != nil {
		t.Error("the index of files holds the paths as they were")
	}
	if d.RedactPaths(nil) != nil {
		t.Error("a nil redactor found leaks")
	}
}
