package diffctx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	godiff "github.com/sourcegraph/go-diff/diff"
)

const (
	gitHeader = "diff --git "
	noNewline = `\ No newline at end of file`
	devNull   = "/dev/null"
)

// Parse reads the output of git diff, as Load runs it, and returns the
// changed files in git's order. Empty input means no changes.
//
// Each file section is parsed with go-diff and then validated: it must start
// with a "diff --git" line, its extended header lines must be ones git
// writes, and every hunk must hold exactly the old and new lines its header
// announces. Any violation is a *ParseError naming the file, because a
// misread diff would put wrong line numbers in front of the reviewer.
func Parse(raw []byte) ([]*File, error) {
	return parse(bytes.NewReader(raw), nil, DefaultPatches)
}

// maxSection is the largest file section held: a file whose diff is
// larger (a data dump, a generated bundle of tens of megabytes) is kept
// as its header and counts, so one file cannot take the memory of a
// review.
const maxSection = 16 << 20

// maxPatch is the largest file section kept whole beside its parsed hunks
// (File.Patch), which would otherwise hold a large file's diff twice: a
// file's diff past it is asked of git when a tool wants it whole.
const maxPatch = 256 << 10

// DefaultPatches is how many bytes of file sections a review keeps whole
// (Options.Patches): a large change's first files in the diff's order,
// the others asked of git when a tool wants them. Every section kept
// whole is held twice, as it came and parsed, so the sections of a
// 20,000-file diff took its dry run from 195 to 260 MiB when all were.
const DefaultPatches = 16 << 20

// countHunkLines counts the added and deleted lines of hunk text.
func countHunkLines(b []byte) (add, del int) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) > 0 {
			switch line[0] {
			case '+':
				add++
			case '-':
				del++
			}
		}
	}
	return add, del
}

// parse reads a diff from r one file section at a time and parses the
// sections on every core as they come, a few at a time, so that memory
// grows with the files kept rather than with the raw diff. Files for which
// skip returns true are dropped as soon as they are parsed.
func parse(r io.Reader, skip func(*File) bool, patches int) ([]*File, error) {
	jobs := make(chan *section, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for s := range jobs {
				s.parse()
			}
		})
	}
	sp := &splitter{jobs: jobs, atStart: true, patches: patches}
	err := sp.run(r)
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	p := &parser{skip: skip}
	for _, s := range sp.sections {
		if err := p.section(s.f, s.err); err != nil {
			return nil, err
		}
	}
	p.flush()
	return p.files, nil
}

// section is one file's part of a diff, parsed by a worker.
type section struct {
	chunk []byte
	start int
	f     *File
	err   error
	// cut is set for a section past maxSection: chunk holds its header
	// alone, and add and del count its hunks' lines.
	cut      bool
	add, del int
	// patch is set for a section kept whole as its File's Patch.
	patch bool
}

// parse parses the section into its File, and tags it: here, on every
// core, rather than in flush.
func (s *section) parse() {
	if s.f, s.err = parseFile(s.chunk, s.start); s.err == nil {
		if s.cut {
			s.f.Additions, s.f.Deletions, s.f.TooLarge = s.add, s.del, true
		} else if s.patch {
			// A copy of its own size: chunk has room to grow into
			// (send), four times a small section's size.
			s.f.patch = make([]byte, len(s.chunk))
			copy(s.f.patch, s.chunk)
		}
		tag(s.f)
	}
	s.chunk = nil
}

// splitter cuts a diff into its file sections and sends each to the
// workers as it ends; sections keeps them in the diff's order.
type splitter struct {
	sections []*section
	jobs     chan<- *section

	chunk   []byte // the current file section
	start   int    // its first line
	line    int    // lines read so far
	atStart bool   // the next read begins a line
	// hunks is where the section's first hunk starts in chunk, 0 before
	// it; cut is set once the section passed maxSection, and add and del
	// then count its lines.
	hunks    int
	cut      bool
	add, del int
	// patch is where the ---/+++ lines start in chunk.
	patch int
	last  int // the size of the last section
	// patches is what is left of the bytes of sections to keep whole.
	patches int
}

// run reads the diff and sends its sections; what it returns is an error
// of the diff's layout or of reading it.
func (sp *splitter) run(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		frag, err := br.ReadSlice('\n')
		if err := sp.take(frag); err != nil {
			return err
		}
		sp.atStart = err == nil
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			sp.send()
			return nil
		default:
			return fmt.Errorf("reading the diff: %w", err)
		}
	}
}

// take adds a fragment of a line (the whole line, unless it is longer
// than the reader's buffer) to the current section, or starts the next.
func (sp *splitter) take(frag []byte) error {
	if sp.atStart && len(frag) > 0 {
		sp.line++
		if bytes.HasPrefix(frag, []byte(gitHeader)) {
			sp.send()
			sp.start = sp.line
		} else if sp.start == 0 && len(bytes.TrimSpace(frag)) > 0 {
			return &ParseError{Line: sp.line, Reason: fmt.Sprintf("expected a %q line, found %q", strings.TrimSpace(gitHeader), clip(frag))}
		}
	}
	switch {
	case sp.start == 0:
	case sp.cut:
		if sp.atStart && len(frag) > 0 {
			switch frag[0] {
			case '+':
				sp.add++
			case '-':
				sp.del++
			}
		}
	default:
		sp.keep(frag)
	}
	return nil
}

// keep appends a fragment to the section held whole, and cuts the section
// to its header once it passes maxSection.
func (sp *splitter) keep(frag []byte) {
	switch {
	case !sp.atStart || sp.hunks > 0:
	case bytes.HasPrefix(frag, []byte("--- ")):
		sp.patch = len(sp.chunk)
	case bytes.HasPrefix(frag, []byte("@@ ")):
		sp.hunks = len(sp.chunk)
	}
	sp.chunk = append(sp.chunk, frag...)
	if sp.hunks > 0 && len(sp.chunk) > maxSection {
		// Too large to hold: the extended header is kept (what changed,
		// the modes), the patch's lines counted from here on.
		sp.add, sp.del = countHunkLines(sp.chunk[sp.hunks:])
		if sp.patch == 0 {
			sp.patch = sp.hunks
		}
		sp.chunk, sp.cut = sp.chunk[:sp.patch:sp.patch], true
	}
}

// send sends the section read so far, if any, to the workers and starts
// the next.
func (sp *splitter) send() {
	if len(sp.chunk) > 0 {
		s := &section{chunk: sp.chunk, start: sp.start, cut: sp.cut, add: sp.add, del: sp.del}
		if n := len(sp.chunk); !sp.cut && n <= maxPatch && n <= sp.patches {
			s.patch, sp.patches = true, sp.patches-n
		}
		sp.sections = append(sp.sections, s)
		sp.jobs <- s
		sp.last = len(sp.chunk)
	}
	sp.hunks, sp.patch, sp.cut, sp.add, sp.del = 0, 0, false, 0, 0
	// The worker owns it now. The next is sized like it: the files of a
	// large change are often alike, and growing each section line by line
	// copied and cleared it many times.
	sp.chunk = make([]byte, 0, min(max(sp.last+sp.last/8, 4<<10), 1<<20))
}

// parser collects files. It holds back the last file because git prints a
// change of type as a deletion followed by an addition of the same path,
// which becomes one File.
type parser struct {
	skip    func(*File) bool
	files   []*File
	pending *File
}

// section takes the next file section as parsed, or its error, which
// ends the parse.
func (p *parser) section(f *File, err error) error {
	if err != nil {
		return err
	}
	if q := p.pending; q != nil && q.Status == Deleted && f.Status == Added && q.Path == f.Path {
		p.pending = mergeTypeChange(q, f)
		return nil
	}
	p.flush()
	p.pending = f
	return nil
}

// flush keeps the pending file unless it is skipped (the workers tagged
// it; a merged change of type is tagged here).
func (p *parser) flush() {
	f := p.pending
	if f == nil {
		return
	}
	p.pending = nil
	if f.Tags == nil {
		tag(f) // a change of type, merged from two sections
	}
	if p.skip == nil || !p.skip(f) {
		p.files = append(p.files, f)
	}
}

// mergeTypeChange joins the deletion del and the addition add of one path.
func mergeTypeChange(del, add *File) *File {
	f := &File{
		Path:       add.Path,
		OldPath:    del.Path,
		Status:     Modified,
		OldMode:    del.OldMode,
		NewMode:    add.NewMode,
		Additions:  add.Additions,
		Deletions:  del.Deletions,
		Binary:     del.Binary || add.Binary,
		Symlink:    del.Symlink || add.Symlink,
		Submodule:  del.Submodule || add.Submodule,
		TypeChange: true,
		Hunks:      append(del.Hunks, add.Hunks...),
	}
	if f.Binary {
		// numstat counts nothing when either side is binary.
		f.Additions, f.Deletions = 0, 0
	}
	return f
}

// header is what a file section's header lines say.
type header struct {
	gitOld, gitNew         string // from the "diff --git" line, best effort
	minus, plus            string // from the "---" and "+++" lines
	hasMinus, hasPlus      bool
	renameFrom, renameTo   string
	copyFrom, copyTo       string
	oldMode, newMode       string
	newFileMode, delMode   string
	indexMode              string
	similarity             int
	binary                 bool
	hasRename, hasCopy     bool
	hasNewFile, hasDelFile bool
}

// parseFile parses one file section; start is the line of the diff it
// begins on.
func parseFile(chunk []byte, start int) (*File, error) {
	first, _, _ := bytes.Cut(chunk, []byte("\n"))
	var h header
	h.gitOld, h.gitNew = splitGitLine(strings.TrimSuffix(string(first[len(gitHeader):]), "\r"))
	name := h.gitNew
	if name == "" {
		name = h.gitOld
	}
	fail := func(line int, format string, args ...any) error {
		return &ParseError{File: name, Line: start + line, Reason: fmt.Sprintf(format, args...)}
	}

	fr := godiff.NewFileDiffReaderOptions(bytes.NewReader(chunk), godiff.ParseOptions{KeepCR: true})
	fd, err := fr.ReadAllHeaders()
	var perr *godiff.ParseError
	switch {
	case err == nil:
	case errors.As(err, &perr) && perr.Err == godiff.ErrExtendedHeadersEOF:
		// A section of header lines only (binary, mode change, pure
		// rename, empty file...), in a combination go-diff does not list.
	default:
		return nil, fail(0, "bad file header: %v", goDiffReason(err))
	}
	if len(fd.Extended) == 0 || !strings.HasPrefix(fd.Extended[0], gitHeader) {
		return nil, fail(0, "the file section does not start with %q", strings.TrimSpace(gitHeader))
	}
	if i, err := h.extended(fd.Extended[1:]); err != nil {
		return nil, fail(1+i, "%v", err)
	}

	// Read the "---" and "+++" lines from the section itself: go-diff
	// trims them, which loses a trailing space of a file name.
	n := len(fd.Extended)
	if minus, plus, ok := fileLines(chunk, n); ok {
		h.hasMinus, h.hasPlus = true, true
		if h.minus, err = headerPath(minus, "a/"); err != nil {
			return nil, fail(n, "%v", err)
		}
		if h.plus, err = headerPath(plus, "b/"); err != nil {
			return nil, fail(n+1, "%v", err)
		}
		n += 2
	}

	f, err := h.file()
	if err != nil {
		return nil, fail(0, "%v", err)
	}
	name = f.Path

	gh, err := fr.HunksReader().ReadAllHunks()
	if err != nil {
		var perr *godiff.ParseError
		if !errors.As(err, &perr) {
			// go-diff returns fmt.Sscanf's error for unreadable numbers.
			return nil, fail(n, "bad hunk header: %v", err)
		}
		return nil, fail(n, "%v", goDiffReason(err))
	}
	if h.hasPlus && len(gh) == 0 {
		return nil, fail(n, "no hunk follows the file header")
	}
	if f.Binary && len(gh) > 0 {
		return nil, fail(n, "a binary file has text hunks")
	}
	if n, err = f.addHunks(gh, n, fail); err != nil {
		return nil, err
	}
	// go-diff skips some lines it does not understand; every line of the
	// section must have been accounted for.
	if total := lineCount(chunk); n != total {
		return nil, fail(n, "unexpected line %q", clip(nthLine(chunk, n)))
	}
	return f, nil
}

// addHunks converts go-diff's hunks of the file, which start on line n of
// its section, checking that they are in order and fit its status, and
// returns the line after them.
func (f *File) addHunks(gh []*godiff.Hunk, n int, fail func(line int, format string, args ...any) error) (int, error) {
	f.Hunks = make([]Hunk, 0, len(gh))
	for i, g := range gh {
		hk, add, del, err := convertHunk(g)
		if err != nil {
			return n, fail(n, "hunk %d (%s): %v", i+1, hunkHeader(g), err)
		}
		if i > 0 {
			prev := f.Hunks[i-1]
			if hk.OldStart < prev.OldStart+prev.OldLines || hk.NewStart < prev.NewStart+prev.NewLines {
				return n, fail(n, "hunk %d (%s) overlaps or precedes the hunk before it", i+1, hunkHeader(g))
			}
		}
		switch {
		case f.Status == Added && hk.OldLines > 0:
			return n, fail(n, "hunk %d (%s) deletes lines of an added file", i+1, hunkHeader(g))
		case f.Status == Deleted && hk.NewLines > 0:
			return n, fail(n, "hunk %d (%s) adds lines to a deleted file", i+1, hunkHeader(g))
		}
		f.Hunks = append(f.Hunks, hk)
		f.Additions += add
		f.Deletions += del
		n += 1 + strings.Count(hk.Body, "\n")
	}
	return n, nil
}

func lineCount(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// nthLine returns line i (0-based) of b, or nil.
func nthLine(b []byte, i int) []byte {
	for ; i > 0; i-- {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return nil
		}
		b = b[j+1:]
	}
	l, _, _ := bytes.Cut(b, []byte("\n"))
	return l
}

// extended interprets the extended header lines after "diff --git". On
// error it returns the index of the line at fault.
func (h *header) extended(lines []string) (int, error) {
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		key, val := headerKey(l)
		var err error
		switch key {
		case "old mode ":
			h.oldMode, err = mode(val)
		case "new mode ":
			h.newMode, err = mode(val)
		case "new file mode ":
			h.hasNewFile = true
			h.newFileMode, err = mode(val)
		case "deleted file mode ":
			h.hasDelFile = true
			h.delMode, err = mode(val)
		case "similarity index ", "dissimilarity index ":
			pct, ok := strings.CutSuffix(val, "%")
			n, convErr := strconv.Atoi(pct)
			if !ok || convErr != nil || n < 0 || n > 100 {
				return i, fmt.Errorf("bad similarity in %q", l)
			}
			if key == "similarity index " {
				h.similarity = n
			}
		case "rename from ":
			h.hasRename = true
			h.renameFrom, err = quotedPath(val)
		case "rename to ":
			h.hasRename = true
			h.renameTo, err = quotedPath(val)
		case "copy from ":
			h.hasCopy = true
			h.copyFrom, err = quotedPath(val)
		case "copy to ":
			h.hasCopy = true
			h.copyTo, err = quotedPath(val)
		case "index ":
			// "index <old>..<new>[ <mode>]"
			if _, m, ok := strings.Cut(val, " "); ok {
				h.indexMode, err = mode(m)
			}
		case "Binary files ":
			if !strings.HasSuffix(val, " differ") {
				return i, fmt.Errorf("unexpected header line %q", clip([]byte(l)))
			}
			h.binary = true
		default:
			return i, fmt.Errorf("unexpected header line %q", clip([]byte(l)))
		}
		if err != nil {
			return i, fmt.Errorf("%q: %w", clip([]byte(l)), err)
		}
	}
	return 0, nil
}

var headerKeys = []string{
	"old mode ", "new mode ", "new file mode ", "deleted file mode ",
	"similarity index ", "dissimilarity index ", "rename from ", "rename to ",
	"copy from ", "copy to ", "index ", "Binary files ",
}

func headerKey(l string) (key, val string) {
	for _, k := range headerKeys {
		if v, ok := strings.CutPrefix(l, k); ok {
			return k, v
		}
	}
	return "", l
}

// file turns the header into a File without hunks.
func (h *header) file() (*File, error) {
	f := &File{Binary: h.binary}
	h.paths(f)
	if err := h.check(f); err != nil {
		return nil, err
	}
	if f.Status == Renamed || f.Status == Copied {
		f.Similarity = h.similarity
	}
	h.modes(f)
	return f, nil
}

// paths sets f's status and paths from the header lines.
func (h *header) paths(f *File) {
	newPath := h.gitNew
	if h.hasPlus && h.plus != "" {
		newPath = h.plus
	}
	oldPath := h.gitOld
	if h.hasMinus && h.minus != "" {
		oldPath = h.minus
	}
	switch {
	case h.hasRename:
		f.Status, f.OldPath, f.Path = Renamed, h.renameFrom, h.renameTo
	case h.hasCopy:
		f.Status, f.OldPath, f.Path = Copied, h.copyFrom, h.copyTo
	case h.hasNewFile:
		f.Status, f.Path = Added, newPath
	case h.hasDelFile:
		f.Status, f.Path, f.OldPath = Deleted, oldPath, oldPath
	default:
		f.Status, f.Path, f.OldPath = Modified, newPath, oldPath
	}
}

// check refuses a header whose lines contradict each other or leave a
// path unknown: git never writes one, so the diff is not git's.
func (h *header) check(f *File) error {
	switch {
	case h.hasNewFile && h.hasDelFile, (h.hasNewFile || h.hasDelFile) && (h.hasRename || h.hasCopy), h.hasRename && h.hasCopy:
		return errors.New("contradictory header lines")
	case h.hasRename && (h.renameFrom == "" || h.renameTo == ""), h.hasCopy && (h.copyFrom == "" || h.copyTo == ""):
		return errors.New("a rename or copy lacks its from or to line")
	case f.Path == "":
		return errors.New("cannot tell the file's path from its header")
	case f.Status != Added && f.OldPath == "":
		return errors.New("cannot tell the file's old path from its header")
	case h.hasMinus && h.minus == "" && f.Status != Added, h.hasPlus && h.plus == "" && f.Status != Deleted:
		return fmt.Errorf("%s file with /dev/null in its ---/+++ lines", f.Status)
	case f.Status == Modified && f.OldPath != f.Path:
		return errors.New("old and new paths differ but the header names no rename or copy")
	}
	return nil
}

// modes sets f's modes, and what they say of symlinks and submodules.
func (h *header) modes(f *File) {
	switch {
	case f.Status == Added:
		f.NewMode = h.newFileMode
	case f.Status == Deleted:
		f.OldMode = h.delMode
	case h.oldMode != "" || h.newMode != "":
		f.OldMode, f.NewMode = h.oldMode, h.newMode
	default:
		f.OldMode, f.NewMode = h.indexMode, h.indexMode
	}
	f.Symlink = f.OldMode == "120000" || f.NewMode == "120000"
	f.Submodule = f.OldMode == "160000" || f.NewMode == "160000"
}

// convertHunk validates a go-diff hunk against its header and returns it
// with the body as git printed it, "\ No newline at end of file" markers
// included (go-diff drops them).
func convertHunk(g *godiff.Hunk) (h Hunk, add, del int, err error) {
	h = Hunk{
		OldStart: int(g.OrigStartLine), OldLines: int(g.OrigLines),
		NewStart: int(g.NewStartLine), NewLines: int(g.NewLines),
		Section: g.Section,
	}
	if h.OldStart < 0 || h.OldLines < 0 || h.NewStart < 0 || h.NewLines < 0 ||
		(h.OldLines > 0 && h.OldStart == 0) || (h.NewLines > 0 && h.NewStart == 0) {
		return h, 0, 0, errors.New("bad line range")
	}
	ctx := 0
	for body := g.Body; len(body) > 0; {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(line) == 0 {
			return h, 0, 0, errors.New("empty line inside the hunk")
		}
		switch line[0] {
		case ' ':
			ctx++
		case '+':
			add++
		case '-':
			del++
		default:
			return h, 0, 0, fmt.Errorf("unexpected line %q", clip(line))
		}
	}
	if ctx+del != h.OldLines || ctx+add != h.NewLines {
		return h, 0, 0, fmt.Errorf("holds %d old and %d new lines, its header says %d and %d",
			ctx+del, ctx+add, h.OldLines, h.NewLines)
	}

	body := g.Body
	var b strings.Builder
	b.Grow(len(body) + 2*len(noNewline))
	if o := int(g.OrigNoNewlineAt); o > 0 && o <= len(body) && body[o-1] == '\n' {
		b.Write(body[:o])
		b.WriteString(noNewline + "\n")
		body = body[o:]
	}
	b.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		// go-diff removed the newline of a last line that lacks one.
		b.WriteString("\n" + noNewline + "\n")
	}
	h.Body = b.String()
	return h, add, del, nil
}

func hunkHeader(g *godiff.Hunk) string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", g.OrigStartLine, g.OrigLines, g.NewStartLine, g.NewLines)
}

// goDiffReason is the message of a go-diff error without its position,
// which counts lines differently from the diff as a whole.
func goDiffReason(err error) string {
	var perr *godiff.ParseError
	if errors.As(err, &perr) {
		return perr.Err.Error()
	}
	return err.Error()
}

// fileLines returns the "---" and "+++" lines following the n extended
// header lines of chunk, without their markers.
func fileLines(chunk []byte, n int) (minus, plus string, ok bool) {
	l1, l2 := nthLine(chunk, n), nthLine(chunk, n+1)
	m, ok1 := bytes.CutPrefix(l1, []byte("--- "))
	p, ok2 := bytes.CutPrefix(l2, []byte("+++ "))
	if !ok1 || !ok2 {
		return "", "", false
	}
	return string(bytes.TrimSuffix(m, []byte("\r"))), string(bytes.TrimSuffix(p, []byte("\r"))), true
}

// headerPath reads the path of a "---" or "+++" line: /dev/null (returned
// as ""), or prefix and the path, C-quoted if it needs quoting. Git ends the
// line with a tab when the path holds a space.
func headerPath(v, prefix string) (string, error) {
	v = strings.TrimSuffix(v, "\t")
	if v == devNull {
		return "", nil
	}
	p, err := quotedPath(v)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(p, prefix), nil
}

// quotedPath reads a path git may have C-quoted.
func quotedPath(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		return v, nil
	}
	p, ok := unquoteC(v)
	if !ok {
		return "", fmt.Errorf("badly quoted path %s", clip([]byte(v)))
	}
	return p, nil
}

// splitGitLine returns the old and new paths of the arguments of a "diff
// --git" line, or empty strings where they are ambiguous: unquoted paths
// holding spaces cannot be told apart unless both are the same.
func splitGitLine(args string) (oldPath, newPath string) {
	strip := func(a, b string) (string, string) {
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
	}
	if strings.HasPrefix(args, `"`) {
		first, rest, ok := cutQuoted(args)
		if !ok || !strings.HasPrefix(rest, " ") {
			return "", ""
		}
		second := rest[1:]
		if strings.HasPrefix(second, `"`) {
			var tail string
			if second, tail, ok = cutQuoted(second); !ok || tail != "" {
				return "", ""
			}
		}
		return strip(first, second)
	}
	// An unquoted path holds no double quote, so one here starts the
	// second, quoted, path.
	if i := strings.Index(args, ` "`); i >= 0 {
		second, tail, ok := cutQuoted(args[i+1:])
		if !ok || tail != "" {
			return "", ""
		}
		return strip(args[:i], second)
	}
	if half := len(args) / 2; len(args)%2 == 1 && args[half] == ' ' {
		a, b := args[:half], args[half+1:]
		if a == b || (strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:]) {
			return strip(a, b)
		}
	}
	if strings.Count(args, " b/") == 1 {
		i := strings.Index(args, " b/")
		return strip(args[:i], args[i+1:])
	}
	return "", ""
}

// cutQuoted unquotes the C-quoted string s starts with and returns the rest.
func cutQuoted(s string) (value, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, ok := unquoteC(s[:i+1])
			return v, s[i+1:], ok
		}
	}
	return "", "", false
}

// unquoteC undoes git's C-style quoting of a path: the escapes \a \b \t \n
// \v \f \r \" \\ and three-digit octal bytes. strconv.Unquote is close but
// would replace bytes that are not UTF-8, which git passes through as is
// when core.quotePath is false.
func unquoteC(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return "", false
		case '\\':
		default:
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(s) {
			return "", false
		}
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\':
			b.WriteByte(c)
		case '0', '1', '2', '3':
			if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
				return "", false
			}
			b.WriteByte((c-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
			i += 2
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// mode checks a git file mode: six octal digits.
func mode(s string) (string, error) {
	if len(s) != 6 {
		return "", errors.New("bad file mode")
	}
	for i := 0; i < len(s); i++ {
		if !isOctal(s[i]) {
			return "", errors.New("bad file mode")
		}
	}
	return s, nil
}

// clip shortens text quoted in an error message.
func clip(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	const max = 80
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
