package policy

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// layers ranks the top-level folders: data flows from lower ranks to
// higher, and a package imports only folders of a higher rank than its
// own (or its own folder). Folders of one rank are peers that never import
// each other. internal/ holds the shared leaves under everything, and
// docs/ the reference pages the binary prints (review help). The
// root's end-to-end tests, the tests of the built binary (internal/e2e),
// the action's tests and the repository's policies (internal/policy) are
// above every layer: tests of the whole, with no code that anything
// imports (TestLayers checks that).
var layers = map[string]int{
	".":               -1,
	"action":          -1,
	"internal/policy": -1,
	"internal/e2e":    -1,
	"cmd":             0,
	"review":          1,
	"diffctx":         2,
	"tools":           2,
	"conversation":    2,
	"toolmem":         3,
	"internal":        4,
	"docs":            4,
}

// TestLayers holds the package map of the design: no folder imports a
// folder above it or beside it, by any sub-package, and no two folders
// import each other even through tests. Inside a folder the same holds
// for sub-folders: no package imports a package of a folder that contains
// it (review/host/github does not import review), tests included, since data a
// child and its parent both need belongs in a leaf both import; a test
// helper too (tools/toolstest opens the store of toolmem, a folder beside
// it, not above it): what the hosts under review/host share is its leaf
// review/host/seam, beside them.
func TestLayers(t *testing.T) {
	const mod = "github.com/reviewdev/review"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	folder := func(p string) (string, bool) {
		rest, ok := strings.CutPrefix(p, mod)
		if !ok || (rest != "" && rest[0] != '/') {
			return "", false
		}
		rest = strings.TrimPrefix(rest, "/")
		if rest == "" {
			return ".", true
		}
		if rest == "internal/policy" || rest == "internal/e2e" {
			return rest, true
		}
		top, _, _ := strings.Cut(rest, "/")
		return top, true
	}
	uses := map[[2]string]bool{} // folder pairs, tests included
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		from, _ := folder(p.ImportPath)
		if layers[from] == -1 && from != "." && len(p.Imports) > 0 {
			t.Errorf("%s imports %s: a folder of tests above the layers has no code", p.ImportPath, strings.Join(p.Imports, ", "))
		}
		for _, imp := range append(append(append([]string(nil), p.Imports...), p.TestImports...), p.XTestImports...) {
			if ancestor(p.ImportPath, imp) {
				t.Errorf("%s imports %s: a package may not import a folder that contains it", p.ImportPath, imp)
			}
		}
		rank, known := layers[from]
		if !known {
			t.Errorf("%s: folder %s has no place in the layer order", p.ImportPath, from)
			continue
		}
		for _, imp := range p.Imports {
			to, ok := folder(imp)
			if !ok || to == from {
				continue
			}
			uses[[2]string{from, to}] = true
			if r, ok := layers[to]; !ok || r <= rank {
				t.Errorf("%s imports %s: %s may import only folders below it", p.ImportPath, imp, from)
			}
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if to, ok := folder(imp); ok && to != from {
				uses[[2]string{from, to}] = true
			}
		}
	}
	for pair := range uses {
		if pair[0] < pair[1] && uses[[2]string{pair[1], pair[0]}] {
			t.Errorf("%s and %s import each other (tests included)", pair[0], pair[1])
		}
	}
}

// ancestor reports whether package imp is in a folder that contains
// package p: imp's path is a proper prefix of p's, folder by folder.
func ancestor(p, imp string) bool {
	return strings.HasPrefix(p, imp+"/")
}
