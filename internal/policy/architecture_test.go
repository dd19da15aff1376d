package policy

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// codeSpan is a `code span` of Markdown.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestArchitecture holds the package table of docs/architecture.md to the
// packages go list finds: every package has one row, with what it owns and
// the packages of the module it imports (tests aside), and no row names a
// package that is not there. A row is | `path` | what it owns | `import`,
// … |, the path relative to the module (`.` for its root) and "none" for
// no import. The message of a failure gives the row or the cell to write.
func TestArchitecture(t *testing.T) {
	const mod = "github.com/reviewdev/review"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(p string) string {
		if p == mod {
			return "."
		}
		return strings.TrimPrefix(p, mod+"/")
	}
	imports := map[string][]string{} // package → its packages of the module
	var pkgs []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var in []string
		for _, imp := range p.Imports {
			if imp == mod || strings.HasPrefix(imp, mod+"/") {
				in = append(in, short(imp))
			}
		}
		slices.Sort(in)
		imports[short(p.ImportPath)] = in
		pkgs = append(pkgs, short(p.ImportPath))
	}
	rows := architectureRows(t)
	for _, p := range pkgs {
		want := "none"
		if len(imports[p]) > 0 {
			want = "`" + strings.Join(imports[p], "`, `") + "`"
		}
		r, ok := rows[p]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md has no row for the package %s: add | `%s` | what it owns | %s |", p, p, want)
			continue
		case strings.TrimSpace(r.owns) == "":
			t.Errorf("docs/architecture.md: the row of %s does not say what it owns", p)
		}
		var got []string
		for _, m := range codeSpan.FindAllStringSubmatch(r.imports, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		if !slices.Equal(got, imports[p]) || (len(got) == 0 && strings.TrimSpace(r.imports) != "none") {
			t.Errorf("docs/architecture.md: the row of %s lists the imports %q; write %s", p, r.imports, want)
		}
		delete(rows, p)
	}
	for p := range rows {
		t.Errorf("docs/architecture.md has a row for %s, which go list ./... does not find: remove the row or correct its path", p)
	}
}

// architectureRow is a row of the package table: what the package owns,
// and the cell of its imports.
type architectureRow struct{ owns, imports string }

// architectureRows reads the package table of docs/architecture.md, the
// table whose header is | package | owns | imports |, by package.
func architectureRows(t *testing.T) map[string]architectureRow {
	t.Helper()
	rows := map[string]architectureRow{}
	in := false
	for _, line := range strings.Split(readDoc(t, "docs/architecture.md"), "\n") {
		if !strings.HasPrefix(line, "|") {
			in = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case slices.Equal(cells, []string{"package", "owns", "imports"}):
			in = true
			continue
		case !in || strings.Trim(line, "|-: ") == "":
			continue
		case len(cells) != 3:
			t.Errorf("docs/architecture.md: a row of the package table has %d cells, not 3 (package, owns, imports): %s", len(cells), line)
			continue
		}
		m := codeSpan.FindStringSubmatch(cells[0])
		if m == nil {
			t.Errorf("docs/architecture.md: a row of the package table names no `package`: %s", line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/architecture.md: two rows for %s", m[1])
		}
		rows[m[1]] = architectureRow{owns: cells[1], imports: cells[2]}
	}
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no package table (| package | owns | imports |)")
	}
	return rows
}
