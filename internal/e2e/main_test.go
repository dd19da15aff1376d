package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the binaries the tests build, and heads PATH, so that a
// test that runs `review` runs the one built here.
var binDir string

// TestMain runs the tests from the repository's root, whose testdata and
// main package they use, with binDir at the head of PATH.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "internal/e2e: not two folders below the repository's root:", err)
		return 1
	}
	var err error
	if binDir, err = os.MkdirTemp("", "review-e2e-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binDir)
	os.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Go's caches as the go command finds them now, before a test moves
	// HOME to a temporary directory (gittest.Isolate): a build after that
	// would find an empty cache and compile everything again (a minute
	// here, which the browser test paid whenever it built the binary).
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	var vars map[string]string
	if err == nil {
		err = json.Unmarshal(out, &vars)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env:", err)
		return 1
	}
	for k, v := range vars {
		goEnv = append(goEnv, k+"="+v)
	}
	return m.Run()
}

// goEnv names Go's build and module caches for the builds the tests
// make, whatever HOME a test has set.
var goEnv []string

var (
	binOnce sync.Once
	binPath string
	rssPath string
	binErr  error
)

// reviewBinary builds the binary once per test process as the release
// builds it (.goreleaser.yaml: no cgo, -trimpath, -s -w), and peakrss,
// which the benchmarks start it from; a test that skips builds nothing.
func reviewBinary(tb testing.TB) string {
	binOnce.Do(func() {
		binPath, rssPath = filepath.Join(binDir, "review"), filepath.Join(binDir, "peakrss")
		for _, args := range [][]string{{"-trimpath", "-ldflags=-s -w", "-o", binPath, "."}, {"-o", rssPath, "./review/reviewtest/peakrss"}} {
			cmd := exec.Command("go", append([]string{"build"}, args...)...)
			cmd.Env = append(append(os.Environ(), goEnv...), "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			if err != nil {
				binErr = fmt.Errorf("go build: %v\n%s", err, out)
				return
			}
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}
