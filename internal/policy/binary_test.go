package policy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// maxBinary is the size docs/performance.md states for the binary as the
// release builds it (-trimpath, without cgo), unstripped, on linux/amd64.
const maxBinary = 26_000_000

// TestBinary builds review as the release does, -trimpath and without cgo
// (CGO_ENABLED=0), unstripped, and holds it to what the docs state: the linker free to drop the methods
// nothing calls, and the size within maxBinary on linux/amd64. Built with
// the directory's path, every package of the repository compiled again in
// each fresh clone (Go's cache keys them on it): the test took 38.9 s of
// CPU there, where with -trimpath it finds them compiled by the tests' own
// builds and takes 8.7 s.
//
// A function that calls a method by a name known only at run time
// (text/template, a reflect.Value.Method call) makes the linker keep
// every exported method of every type that reaches an interface: 4.7 MB
// of this binary. The linker's dependency dump marks such a function
// <ReflectMethod>; the test names it and the path that reaches it.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "review")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-dumpdep", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var dump, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dump, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v\n%s", err, errs.Bytes())
	}
	// The dump is "parent -> child" for each symbol the linker keeps, in
	// the order it reached them; the first parent is how it got there.
	dump.Write(errs.Bytes())
	parent := map[string]string{}
	var reflective []string
	sc := bufio.NewScanner(&dump)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		name := strings.Fields(to)
		if len(name) == 0 {
			continue
		}
		if _, seen := parent[name[0]]; !seen {
			parent[name[0]] = strings.Fields(from + " _")[0]
			if strings.Contains(to, "<ReflectMethod>") {
				reflective = append(reflective, name[0])
			}
		}
	}
	// Once one keeps every method, reflect's own Method is kept too:
	// name it only when nothing else is to blame.
	if slices.ContainsFunc(reflective, func(s string) bool { return !strings.HasPrefix(s, "reflect.") }) {
		reflective = slices.DeleteFunc(reflective, func(s string) bool { return strings.HasPrefix(s, "reflect.") })
	}
	for _, r := range reflective {
		path := []string{r}
		for p := parent[r]; p != "_" && p != "" && len(path) < 40; p = parent[p] {
			path = append(path, p)
		}
		t.Errorf("%s calls methods by a name known at run time, so the linker keeps every exported method of every type; reached by:\n\t%s",
			r, strings.Join(path[1:], "\n\t"))
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("go build: %d bytes (%s/%s, %s)", fi.Size(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" && fi.Size() > maxBinary {
		t.Errorf("go build writes %d bytes, more than the %d docs/performance.md states", fi.Size(), maxBinary)
	}
}
