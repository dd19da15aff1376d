package toolmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
)

// openTest opens a store in a new temporary directory, closed at the end of
// the test.
func openTest(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "store"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// randomBytes returns n reproducible bytes, most of them not valid UTF-8.
func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	_, _ = r.Read(b)
	return b
}

func TestPutGet(t *testing.T) {
	sizes := []int{0, 1, 4<<10 - 1, 4 << 10, chunkSize - 1, chunkSize, chunkSize + 1, 3*chunkSize + 7}
	if !testing.Short() {
		sizes = append(sizes, 50<<20)
	}
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string][]byte{}
	for i, size := range sizes {
		data := randomBytes(uint64(i), size)
		before := time.Now()
		ref, err := s.Put("run-1", i, fmt.Sprintf("call_%d", i), "search_in_project", `{"pattern":"x"}`, data)
		if err != nil {
			t.Fatalf("Put %d bytes: %v", size, err)
		}
		got, err := s.Get(ref)
		if err != nil {
			t.Fatalf("Get %d bytes: %v", size, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("Get %d bytes: %d bytes back, not the same", size, len(got))
		}
		m, err := s.Meta(ref)
		if err != nil {
			t.Fatal(err)
		}
		want := Output{Ref: ref, Run: "run-1", Step: i, CallID: fmt.Sprintf("call_%d", i), Tool: "search_in_project",
			Args: `{"pattern":"x"}`, Bytes: size, Lines: countLines(data), Created: m.Created}
		if m != want {
			t.Fatalf("Meta = %+v, want %+v", m, want)
		}
		if m.Created.Before(before.Add(-time.Second)) || m.Created.After(time.Now().Add(time.Second)) {
			t.Fatalf("Created = %v, not now", m.Created)
		}
		refs[ref] = data
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for ref, data := range refs {
		got, err := s.Get(ref)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after reopening, Get(%s) = %d bytes, %v; want %d bytes", ref, len(got), err, len(data))
		}
	}
}

func TestRefs(t *testing.T) {
	s := openTest(t)
	ref := refFor("run-1", "call_1")
	if !regexp.MustCompile(`^[0-9]{12}$`).MatchString(ref) || !validRef(ref) {
		t.Fatalf("refFor = %q, want 12 digits", ref)
	}
	// A store written before holds base32 refs: still refs.
	for ref, ok := range map[string]bool{"x47ujgpkj3": true, "000000000000": true, "x47ujgpkj1": false, "12345678901": false, "1234567890ab": false} {
		if validRef(ref) != ok {
			t.Errorf("validRef(%q) = %v", ref, !ok)
		}
	}
	if refFor("run-1", "call_1") != ref {
		t.Fatal("refFor is not stable")
	}
	if refFor("run-2", "call_1") == ref {
		t.Fatal("refFor gives the same ref in two runs")
	}
	if refFor("run-1c", "all_1") == ref {
		t.Fatal("refFor confuses run and call boundaries")
	}

	put := func(step int, call, args string, data string) string {
		t.Helper()
		ref, err := s.Put("run-1", step, call, "read_file_hunk", args, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	first := put(1, "call_1", "{}", strings.Repeat("long output\n", 300000))
	if first != ref {
		t.Fatalf("Put returned %q, want refFor = %q", first, ref)
	}
	// A retry of the same call overwrites under the same ref, dropping the
	// chunks the longer output had.
	if again := put(1, "call_1", "{}", "short\n"); again != first {
		t.Fatalf("a retry minted ref %q, want %q", again, first)
	}
	if got, _ := s.Get(first); string(got) != "short\n" {
		t.Fatalf("after the retry Get = %.40q", got)
	}
	// Providers that reuse call IDs must not lose the earlier output.
	second := put(2, "call_1", "{}", "step two\n")
	third := put(2, "call_1", `{"other":1}`, "other args\n")
	if second == first || third == first || third == second {
		t.Fatalf("reused call ID got refs %s, %s, %s; want three different", first, second, third)
	}
	for ref, want := range map[string]string{first: "short\n", second: "step two\n", third: "other args\n"} {
		if got, err := s.Get(ref); err != nil || string(got) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if again := put(2, "call_1", `{"other":1}`, "retried\n"); again != third {
		t.Fatalf("a retry of a derived ref minted %q, want %q", again, third)
	}
	// Refs as people type them.
	for _, typed := range []string{strings.ToUpper(first), ` "` + first + `" `} {
		if _, err := s.Meta(typed); err != nil {
			t.Errorf("Meta(%q): %v", typed, err)
		}
	}
}

func TestNotFound(t *testing.T) {
	s := openTest(t)
	for _, ref := range []string{"", "aaaaaaaaaa", "../../etc", "m/x/", strings.Repeat("a", 100), "a\x00b"} {
		_, err := s.Get(ref)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", ref, err)
		}
		for _, err := range []error{
			func() error { _, err := s.Meta(ref); return err }(),
			func() error { _, err := s.Page(ref, 1, 10, 0); return err }(),
			func() error { _, err := s.Grep(ref, "x", 10, 0); return err }(),
		} {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%q: %v, want ErrNotFound", ref, err)
			}
		}
	}
	_, err := s.Get("aaaaaaaaaa")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Kind != KindRef || nf.ID != "aaaaaaaaaa" {
		t.Errorf("error = %#v, want a *NotFoundError for ref aaaaaaaaaa", err)
	}
	if _, err := s.Put("bad/run", 1, "c", "t", "", nil); err == nil {
		t.Error("Put accepted a run ID with a slash")
	}
	if _, err := s.Put("run", -1, "c", "t", "", nil); err == nil {
		t.Error("Put accepted a negative step")
	}
}

func TestList(t *testing.T) {
	s := openTest(t)
	var want1, all []string
	for i := range 5 {
		run := []string{"run-a", "run-b"}[i%2]
		ref, err := s.Put(run, i, fmt.Sprint("call", i), "t", "", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ref)
		if run == "run-a" {
			want1 = append(want1, ref)
		}
	}
	refsOf := func(outs []Output, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, o := range outs {
			refs = append(refs, o.Ref)
		}
		return refs
	}
	if got := refsOf(s.List("run-a")); fmt.Sprint(got) != fmt.Sprint(want1) {
		t.Errorf("List(run-a) = %v, want %v", got, want1)
	}
	if got := refsOf(s.List("")); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("List() = %v, want %v (oldest first)", got, all)
	}
	if got := refsOf(s.List("run-none")); len(got) != 0 {
		t.Errorf("List(run-none) = %v", got)
	}
}

func TestPage(t *testing.T) {
	s := openTest(t)
	put := func(data string) string {
		ref, err := s.Put("run", 0, data[:min(len(data), 20)], "t", "", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	lines := put(string(numbered("line", 250)))
	crlf := put("one\r\ntwo\r\nthree\r\n")
	noEOL := put("a\nb\nlast")
	empty := put("")
	wide := put(strings.Repeat(strings.Repeat("w", 999)+"\n", 100))
	huge := put(strings.Repeat("語", 1<<20))

	tests := []struct {
		name         string
		ref          string
		start, count int
		wantStart    int
		wantEnd      int
		total        int
		text         string // whole text, if set
		err          string
	}{
		{name: "first lines", ref: lines, start: 1, count: 3, wantStart: 1, wantEnd: 3, total: 250, text: "1: line 1\n2: line 2\n3: line 3"},
		{name: "middle", ref: lines, start: 100, count: 2, wantStart: 100, wantEnd: 101, total: 250, text: "100: line 100\n101: line 101"},
		{name: "start 0 is 1", ref: lines, start: 0, count: 1, wantStart: 1, wantEnd: 1, total: 250, text: "1: line 1"},
		{name: "count 0 is the default", ref: lines, start: 1, count: 0, wantStart: 1, wantEnd: DefaultPageLines, total: 250},
		{name: "count is capped", ref: lines, start: 1, count: 100000, wantStart: 1, wantEnd: 250, total: 250},
		{name: "last page is short", ref: lines, start: 245, count: 80, wantStart: 245, wantEnd: 250, total: 250},
		{name: "last line", ref: lines, start: 250, count: 1, wantStart: 250, wantEnd: 250, total: 250, text: "250: line 250"},
		{name: "past the end", ref: lines, start: 251, count: 1, err: "has 250 lines; ask for start_line <= 250"},
		{name: "CRLF", ref: crlf, start: 1, count: 10, wantStart: 1, wantEnd: 3, total: 3, text: "1: one\n2: two\n3: three"},
		{name: "no trailing newline", ref: noEOL, start: 2, count: 10, wantStart: 2, wantEnd: 3, total: 3, text: "2: b\n3: last"},
		{name: "empty", ref: empty, start: 1, count: 10, wantStart: 1, wantEnd: 0, total: 0, text: ""},
		{name: "empty past the end", ref: empty, start: 2, count: 10, err: "is empty"},
		{name: "characters are capped", ref: wide, start: 1, count: 100, wantStart: 1, wantEnd: 15, total: 100},
		{name: "huge line is cut", ref: huge, start: 1, count: 10, wantStart: 1, wantEnd: 1, total: 1,
			text: "1: " + strings.Repeat("語", maxLineChars) + fmt.Sprintf(" [... %d more bytes]", 3<<20-3*maxLineChars)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Page(tt.ref, tt.start, tt.count, 0)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Ref != tt.ref || p.Start != tt.wantStart || p.End != tt.wantEnd || p.Total != tt.total {
				t.Fatalf("page %s %d-%d of %d, want %s %d-%d of %d", p.Ref, p.Start, p.End, p.Total, tt.ref, tt.wantStart, tt.wantEnd, tt.total)
			}
			if tt.text != "" && p.Text != tt.text {
				t.Fatalf("text:\n%.300q\nwant:\n%.300q", p.Text, tt.text)
			}
			if got := strings.Count(p.Text, "\n") + 1; p.End >= p.Start && got != p.End-p.Start+1 {
				t.Fatalf("text has %d lines for %d-%d", got, p.Start, p.End)
			}
			if n := len([]rune(p.Text)); n > maxPageChars {
				t.Fatalf("text has %d characters, more than %d", n, maxPageChars)
			}
		})
	}
}

func TestGrep(t *testing.T) {
	s := openTest(t)
	put := func(data string) string {
		ref, err := s.Put("run", 0, data[:min(len(data), 20)], "t", "", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	log := put("ok 1\nFAIL: a\nok 2\nFAIL: b\r\nok 3\nfail: c")
	many := put(string(numbered("match", 1000)))
	long := put(strings.Repeat("x", 100000) + "NEEDLE" + strings.Repeat("y", 100000) + "\n")

	tests := []struct {
		name                string
		ref, pattern        string
		max                 int
		matches, shown, tot int
		text, err           string
	}{
		{name: "matches with line numbers", ref: log, pattern: "^FAIL", matches: 2, shown: 2, tot: 6, text: "2: FAIL: a\n4: FAIL: b"},
		{name: "end anchor on CRLF", ref: log, pattern: `b$`, matches: 1, shown: 1, tot: 6, text: "4: FAIL: b"},
		{name: "case-insensitive", ref: log, pattern: "(?i)fail", matches: 3, shown: 3, tot: 6},
		{name: "last line without newline", ref: log, pattern: "c$", matches: 1, shown: 1, tot: 6, text: "6: fail: c"},
		{name: "no match", ref: log, pattern: "nothing", matches: 0, shown: 0, tot: 6, text: ""},
		{name: "capped by max", ref: many, pattern: "match", max: 5, matches: 1000, shown: 5, tot: 1000},
		{name: "max 0 is the default", ref: many, pattern: "match", max: 0, matches: 1000, shown: defaultGrepMatches, tot: 1000},
		{name: "max is capped", ref: many, pattern: "match", max: 1 << 30, matches: 1000, shown: MaxGrepMatches, tot: 1000},
		{name: "invalid regex", ref: log, pattern: "(unclosed", err: `invalid regular expression "(unclosed"`},
		{name: "lookahead", ref: log, pattern: "a(?=b)", err: "RE2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.Grep(tt.ref, tt.pattern, tt.max, 0)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Ref != tt.ref || r.Pattern != tt.pattern || r.Matches != tt.matches || r.Shown != tt.shown || r.Total != tt.tot {
				t.Fatalf("got %+v", r)
			}
			if tt.text != "" && r.Text != tt.text {
				t.Fatalf("text %q, want %q", r.Text, tt.text)
			}
		})
	}

	r, err := s.Grep(long, "NEEDLE", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "NEEDLE") || len([]rune(r.Text)) > maxLineChars+100 ||
		!strings.Contains(r.Text, "[... 99500 earlier bytes] ") || !strings.Contains(r.Text, " [... 98506 more bytes]") {
		t.Fatalf("long line not shown around its match: %.200q...", r.Text)
	}
}

func TestPermissions(t *testing.T) {
	withUmask(t, 0o022)
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.Mkdir(dir, 0o755); err != nil { // too open: Open tightens it
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o700 {
			t.Errorf("%s: directory mode %v, want 0700", when, info.Mode().Perm())
		}
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s: %d files, %v", when, len(entries), err)
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s: %s has mode %v, want 0600", when, e.Name(), info.Mode().Perm())
			}
		}
	}
	check("after Open")
	for i := range 20 {
		if _, err := s.Put("run", i, fmt.Sprint(i), "t", "", randomBytes(uint64(i), 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("after Close")
}

func TestOpenRefusesOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "is not a tool memory directory") {
		t.Fatalf("Open of a directory with other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open wrote a store into the directory: %v", err)
	}
}

// TestQuiet checks that Badger writes nothing to the terminal.
func TestQuiet(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	stderr, stdout := os.Stderr, os.Stdout
	os.Stderr, os.Stdout = f, f
	func() {
		defer func() { os.Stderr, os.Stdout = stderr, stdout }()
		dir := filepath.Join(t.TempDir(), "store")
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put("run", 1, "c", "t", "", randomBytes(1, 5<<20)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GC(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err = Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}()
	out, _ := os.ReadFile(f.Name())
	if len(out) > 0 {
		t.Fatalf("the store wrote to the terminal:\n%s", out)
	}
}

func TestConcurrentPuts(t *testing.T) {
	s := openTest(t)
	var wg sync.WaitGroup
	refs := make([]string, 16)
	for i := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref, err := s.Put("run", 1, fmt.Sprint("call", i), "t", "", []byte(fmt.Sprint(i)))
			if err != nil {
				t.Error(err)
			}
			refs[i] = ref
		}()
	}
	wg.Wait()
	for i, ref := range refs {
		if got, err := s.Get(ref); err != nil || string(got) != fmt.Sprint(i) {
			t.Errorf("Get(%s) = %q, %v", ref, got, err)
		}
	}
}

// gitEnv makes git ignore the user's configuration.
func gitEnv(t *testing.T) { gittest.Isolate(t) }

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	gittest.In(t, dir).Git(args...)
}

func TestDefaultDir(t *testing.T) {
	gitEnv(t)
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	runGit(t, root, "init", "-q", "-b", "main", repo)
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "add", "a.txt")
	runGit(t, repo, "commit", "-q", "-m", "first")
	if err := os.Mkdir(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "worktree", "add", "-q", filepath.Join(root, "wt"))

	want := filepath.Join(repo, ".git", "review")
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		want = filepath.Join(real, ".git", "review")
	}
	for _, dir := range []string{repo, filepath.Join(repo, "sub"), filepath.Join(root, "wt")} {
		got, err := DefaultDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if g, _ := filepath.EvalSymlinks(filepath.Dir(got)); filepath.Join(g, "review") != want {
			t.Errorf("DefaultDir(%s) = %s, want %s", dir, got, want)
		}
	}

	_, err := DefaultDir(t.TempDir())
	var ge *GitDirError
	if !errors.As(err, &ge) || !ge.NotRepo() || strings.Contains(err.Error(), "\n") {
		t.Fatalf("DefaultDir outside a repository: %#v", err)
	}
}

// TestPageAcrossChunks pages and greps an output whose lines straddle chunk
// boundaries, against a plain split of the whole output.
func TestPageAcrossChunks(t *testing.T) {
	s := openTest(t)
	var b bytes.Buffer
	for i := 1; b.Len() < 3*chunkSize+100; i++ {
		fmt.Fprintf(&b, "line %d %s\r\n", i, strings.Repeat("z", i%97))
	}
	b.WriteString("tail without newline")
	data := b.Bytes()
	ref, err := s.Put("run", 1, "c", "t", "", data)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	// Lines around each chunk boundary, and the first and last.
	starts := []int{1, len(want)}
	for c := 1; c <= 3; c++ {
		n := countLines(data[:c*chunkSize])
		starts = append(starts, n-1, n, n+1)
	}
	for _, start := range starts {
		p, err := s.Page(ref, start, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		var exp []string
		for n := start; n < start+3 && n <= len(want); n++ {
			exp = append(exp, fmt.Sprintf("%d: %s", n, want[n-1]))
		}
		if p.Text != strings.Join(exp, "\n") {
			t.Fatalf("Page(%d):\n%q\nwant\n%q", start, p.Text, strings.Join(exp, "\n"))
		}
	}
	for _, n := range starts {
		pattern := "^" + regexp.QuoteMeta(want[n-1]) + "$"
		r, err := s.Grep(ref, pattern, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Matches != 1 || r.Text != fmt.Sprintf("%d: %s", n, want[n-1]) {
			t.Fatalf("Grep(%q) = %+v", pattern, r)
		}
	}
}

func TestErrorLog(t *testing.T) {
	var buf bytes.Buffer
	l := errorLogger{&buf}
	l.Infof("info %d", 1)
	l.Warningf("warning")
	l.Debugf("debug")
	l.Errorf("while compacting: %v\n", errors.New("disk full"))
	if got := buf.String(); got != "tool memory: while compacting: disk full\n" {
		t.Fatalf("log = %q", got)
	}
	errorLogger{}.Errorf("nowhere") // a nil writer drops errors
}

// TestConversationByParts stores a growing conversation step by step:
// it reads back as written, each step writes only the parts that changed,
// and the store's records stay readable for doctor.
func TestConversationByParts(t *testing.T) {
	s := openTest(t)
	run := "20260101-000000-abcdef"
	var parts [][]byte
	for step := 1; step <= 60; step++ {
		parts = append(parts, []byte(fmt.Sprintf(`{"id":"m%d","content":%q}`, step, strings.Repeat("x", step*10))))
		if step == 30 {
			parts[3] = []byte(`{"id":"m4","content":"[stub]"}`) // pruning changed one
		}
		c := Conversation{Parts: parts, Next: step}
		if err := s.PutConversation(run, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Conversation(run)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("step %d: read back %d parts (%v), want %d", step, len(got.Parts), err, len(parts))
		}
	}
	// Shrinking, and a conversation in one piece, round-trip too.
	for _, c := range []Conversation{{Parts: [][]byte{}}, {Whole: []byte(`{"other":1}`)}, {Parts: [][]byte{[]byte(`{"id":"m1"}`)}, Next: 1}} {
		if err := s.PutConversation(run, c); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Conversation(run); err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("read back %+v (%v), want %+v", got, err, c)
		}
	}
	rep, err := s.Verify()
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify: %+v, %v", rep.Problems, err)
	}
}

// TestSyncer checks the background syncs: every write is followed by a
// sync that starts after it, writes coming in during a sync share the next
// one, and a failed sync fails the next write and the close.
func TestSyncer(t *testing.T) {
	var mu sync.Mutex
	var written, synced, syncs int
	block := make(chan struct{})
	y := startSyncer(func() error {
		<-block
		mu.Lock()
		defer mu.Unlock()
		synced = written
		syncs++
		return nil
	}, 0)
	write := func() {
		mu.Lock()
		written++
		mu.Unlock()
		if err := y.request(); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		write()
	}
	close(block)
	write()
	if err := y.stop(); err != nil {
		t.Fatal(err)
	}
	if synced != written || syncs > 3 {
		t.Errorf("synced %d of %d writes in %d syncs", synced, written, syncs)
	}

	boom := errors.New("disk on fire")
	y = startSyncer(func() error { return boom }, time.Hour)
	if err := y.request(); err != nil {
		t.Fatal(err) // the first sync has not run yet
	}
	deadline := time.Now().Add(5 * time.Second)
	for y.request() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := y.request(); !errors.Is(err, boom) {
		t.Errorf("write after a failed sync: %v", err)
	}
	if err := y.stop(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("close after a failed sync: %v", err)
	}
}

// TestSyncerEvery checks that writes that keep coming are synced at most
// once an interval, that the last of them is synced, and that stop makes
// a pending sync at once.
func TestSyncerEvery(t *testing.T) {
	var written, synced, syncs atomic.Int64
	const every = 40 * time.Millisecond
	y := startSyncer(func() error {
		synced.Store(written.Load())
		syncs.Add(1)
		return nil
	}, every)
	start := time.Now()
	for time.Since(start) < 10*every {
		written.Add(1)
		if err := y.request(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(every / 20)
	}
	took := time.Since(start)
	deadline := time.Now().Add(time.Minute)
	for synced.Load() != written.Load() && time.Now().Before(deadline) {
		time.Sleep(every / 4)
	}
	if synced.Load() != written.Load() {
		t.Fatalf("synced %d of %d writes", synced.Load(), written.Load())
	}
	if n, most := syncs.Load(), int64(took/every)+2; n > most {
		t.Errorf("%d writes in %v took %d syncs, want at most %d (one every %v)", written.Load(), took, n, most, every)
	}
	if err := y.stop(); err != nil {
		t.Fatal(err)
	}

	// A write just after a sync waits for the next interval, but not at
	// stop.
	syncs.Store(0)
	y = startSyncer(func() error { syncs.Add(1); return nil }, time.Hour)
	for range 2 {
		if err := y.request(); err != nil {
			t.Fatal(err)
		}
		for syncs.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	start = time.Now()
	if err := y.stop(); err != nil {
		t.Fatal(err)
	}
	if n := syncs.Load(); n != 2 || time.Since(start) > 30*time.Second {
		t.Errorf("stop made %d syncs in all in %v, want 2 at once", n, time.Since(start))
	}
}

// TestReviewsLeaveNoValueLogFile opens a store once per review, 60 times,
// each writing what a review of a small change writes (its run record, a
// 9 KB first request and three more, their responses, a conversation of
// 20 KB, outputs of a few KB): Badger starts a value log file at every open
// and keeps each that holds a value, so a store used to keep one file per
// review, all of them mapped by every later open. Under valueThreshold
// those records stay in the LSM tree and the files stay empty; a large
// output still goes to the value log.
func TestReviewsLeaveNoValueLogFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	request := json.RawMessage(`{"model":"m","messages":[{"role":"system","content":"` + strings.Repeat("s", 9000) + `"}]}`)
	conv := json.RawMessage(`[{"role":"user","content":"` + strings.Repeat("c", 20000) + `"}]`)
	for i := range 60 {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("run-%02d", i)
		if err := s.PutRun(Run{ID: id, Status: StatusComplete, Started: time.Unix(int64(1000+i), 0)}); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 4; n++ {
			if _, err := s.Put(id, n, "call", "t", "{}", textOutput(6<<10)); err != nil {
				t.Fatal(err)
			}
			if err := s.PutStep(Step{Run: id, N: n, Request: request, Response: json.RawMessage(`{"id":"x"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutConversation(id, Conversation{Whole: conv}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if len(logs) > 2 {
		t.Errorf("%d value log files after 60 reviews, want at most 2", len(logs))
	}

	// A large output goes to the value log, and reads back.
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := string(textOutput(4 * valueThreshold))
	ref, err := s.Put("run-big", 1, "call", "t", "{}", []byte(big))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ref); err != nil || string(got) != big {
		t.Fatalf("Get of a large output: %d bytes, %v", len(got), err)
	}
	s.Close()
	if fi, err := os.Stat(lastLog(t, dir)); err != nil || fi.Size() < int64(len(big)) {
		t.Errorf("the large output is not in the value log: %v, %v", fi, err)
	}
}

// lastLog is the newest value log file of dir.
func lastLog(t *testing.T, dir string) string {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if len(logs) == 0 {
		t.Fatal("no value log")
	}
	slices.Sort(logs)
	return logs[len(logs)-1]
}

// shortOpens opens the store in dir n times, each open writing a run
// (run-00, run-01...) and an output and closing at once, as `review tool`
// does in a loop; each is given to opened first, when not nil.
func shortOpens(t *testing.T, dir string, n int, opened func(*Store)) {
	t.Helper()
	for i := range n {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if opened != nil {
			opened(s)
		}
		id := fmt.Sprintf("run-%02d", i)
		if err := s.PutRun(Run{ID: id, Status: StatusComplete, Started: time.Unix(int64(i), 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(id, 0, "call", "t", "{}", textOutput(3000)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShortOpensMergeLevelZero opens a store 40 times, each open writing a
// run and closing at once, as `review tool` does in a loop: each close
// leaves a table at Badger's level 0, which Badger merges only in a
// longer process; the close merges them once there are l0Tables, so
// level 0 stays small and everything written reads back.
func TestShortOpensMergeLevelZero(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	most := 0
	shortOpens(t, dir, 40, func(s *Store) { most = max(most, s.db.Levels()[0].NumTables) })
	// At most l0Tables, and under the level-0 tables at which Badger
	// stalls writes (WithNumLevelZeroTablesStall).
	if most > min(l0Tables, 7) {
		t.Errorf("level 0 held %d tables at an open, want at most %d", most, min(l0Tables, 7))
	}
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs()
	outs, lerr := s.List("")
	if err != nil || lerr != nil || len(runs) != 40 || len(outs) != 40 {
		t.Fatalf("%d runs (%v), %d outputs (%v), want 40 each", len(runs), err, len(outs), lerr)
	}
	for _, o := range outs {
		if data, err := s.Get(o.Ref); err != nil || len(data) != 3000 {
			t.Fatalf("Get %s: %d bytes, %v", o.Ref, len(data), err)
		}
	}
}

// TestTransactionsFit writes the largest transactions the store makes,
// which a smaller memtable would refuse (Badger's ErrTxnTooBig): a step
// whose request and response each end in a chunk just under
// valueThreshold (the rest of each in the value log), an output the same,
// and a conversation of small parts and of parts just under
// valueThreshold, all of which change again. They must fit maxTxnBytes.
func TestTransactionsFit(t *testing.T) {
	if 2*valueThreshold+1024 > maxTxnBytes || partBytesPerTxn+partsPerTxn*64 > maxTxnBytes {
		t.Fatalf("valueThreshold %d and partBytesPerTxn %d do not fit a transaction of %d bytes", valueThreshold, partBytesPerTxn, maxTxnBytes)
	}
	s := openTest(t)
	under := textOutput(chunkSize + valueThreshold - 100)
	for i := range 2 {
		st := Step{Run: "run", N: 1, Request: under[i:], Response: under[:len(under)-i]}
		if err := s.PutStep(st); err != nil {
			t.Fatalf("a step of two bodies that end under valueThreshold: %v", err)
		}
	}
	if _, err := s.Put("run", 1, "call", "t", "", under); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{2000, valueThreshold - 100} {
		parts := make([][]byte, 3*partsPerTxn)
		for i := range parts {
			parts[i] = textOutput(size)
		}
		for range 2 {
			if err := s.PutConversation("run", Conversation{Parts: parts}); err != nil {
				t.Fatalf("a conversation of %d parts of %d bytes: %v", len(parts), size, err)
			}
			parts[0] = append(parts[0][:len(parts[0]):len(parts[0])], ' ')
		}
	}
}
