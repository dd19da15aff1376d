package reviewtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// GenerateRepo creates, in dir, a git repository whose branch feature,
// checked out, changes n files against main, for tests and benchmarks of
// large changes. Files are Go sources of about 30 lines in 120 directories
// two levels deep; of the n, a tenth are added, a tenth deleted, renames
// are renamed with an edit, and the rest modified in two places; every
// 97th is under internal/auth. The commits are written with git
// fast-import, so even 10,000 files take about a second; the work tree is
// left empty, since review reads only commits. env is the environment git
// runs with (nil: the process's).
func GenerateRepo(dir string, n, renames int, env []string) error {
	path := func(i int) string {
		if i%97 == 5 {
			return fmt.Sprintf("internal/auth/a%05d.go", i)
		}
		return fmt.Sprintf("pkg%02d/sub%d/f%05d.go", i%40, i%3, i)
	}
	body := func(i, variant int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%40)
		for k := 1; k <= 30; k++ {
			v := 0
			if variant > 0 && (k == 4 || k == 24) {
				v = variant
			}
			fmt.Fprintf(&b, "func F%d_%d(x int) int { return x*%d + %d }\n", i, k, k, v)
		}
		return b.String()
	}
	var stream bytes.Buffer
	file := func(p, data string) {
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data)
	}
	commit := func(ref, msg, from string) {
		fmt.Fprintf(&stream, "commit %s\ncommitter Test <test@example.com> 1767225600 +0000\ndata %d\n%s\n", ref, len(msg), msg)
		if from != "" {
			fmt.Fprintf(&stream, "from %s\n", from)
		}
	}
	added := n / 10
	base := n - added // the files the base has
	commit("refs/heads/main", "base", "")
	for i := range base {
		file(path(i), body(i, 0))
	}
	commit("refs/heads/feature", "feature", "refs/heads/main")
	for i := range base {
		switch {
		case i < renames:
			fmt.Fprintf(&stream, "D %s\n", path(i))
			file(strings.Replace(path(i), ".go", "_moved.go", 1), body(i, 1))
		case i%10 == 9:
			fmt.Fprintf(&stream, "D %s\n", path(i))
		default:
			file(path(i), body(i, 1))
		}
	}
	for i := base; i < n; i++ {
		file(path(i), body(i, 0))
	}
	if env == nil {
		env = os.Environ()
	}
	run := func(stdin *bytes.Buffer, args ...string) error {
		c := exec.Command("git", args...)
		// glibc's malloc would give back, and fault in again, zlib's
		// state for every object: a tenfold slowdown of fast-import.
		c.Dir, c.Env = dir, append(env, "MALLOC_TRIM_THRESHOLD_=100000000", "MALLOC_MMAP_THRESHOLD_=100000000")
		if stdin != nil {
			c.Stdin = stdin
		}
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", args[0], err, out)
		}
		return nil
	}
	if err := run(nil, "init", "-q"); err != nil {
		return err
	}
	if err := run(&stream, "fast-import", "--quiet"); err != nil {
		return err
	}
	return run(nil, "symbolic-ref", "HEAD", "refs/heads/feature")
}
