package toolmem

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"
)

// A ref is refLen decimal digits. Every BPE tokenizer the project counts
// with (and Llama's) cuts digits into runs of three, each one token, so a
// ref costs the same tokens whichever digits it draws: two runs of the
// same conversation count the same, and prune at the same turns. Stores
// written before hold refs of legacyRefLen lowercase base32 characters,
// which are still read.
const (
	refLen       = 12
	legacyRefLen = 10
)

// Paging and grep bounds. Page and Grep never return more than
// maxPageChars characters of text, so their results can go to a model whole.
const (
	DefaultPageLines   = 80
	MaxPageLines       = 400
	maxPageChars       = 16000
	maxLineChars       = 2000
	defaultGrepMatches = 50
	MaxGrepMatches     = 400
)

// refEncoding is lowercase base32 without padding, for run IDs: short,
// unambiguous when read aloud or retyped, and safe in keys.
var refEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// refFor returns the ref of the output of tool call callID in run: refLen
// lowercase base32 characters of a hash of both, so the same call always gets
// the same ref (a retry overwrites, it does not mint a new one) and calls of
// different runs get different refs even when providers reuse call IDs.
//
// Put uses refFor unless that ref already holds a different call of the run
// (a provider that reuses call IDs across steps); it then derives another
// ref. Always use the ref Put returns.
func refFor(run, callID string) string {
	return refFrom(run, callID)
}

func refFrom(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	return fmt.Sprintf("%0*d", refLen, binary.BigEndian.Uint64(sum[:8])%refSpace)
}

// refSpace is the number of refs: 10^refLen.
const refSpace = 1_000_000_000_000

// validRef reports whether ref can be a ref; anything else cannot be in the
// store, and must not reach a key.
func validRef(ref string) bool {
	switch len(ref) {
	case refLen:
		for i := 0; i < len(ref); i++ {
			if c := ref[i]; c < '0' || c > '9' {
				return false
			}
		}
		return true
	case legacyRefLen:
		for i := 0; i < len(ref); i++ {
			if c := ref[i]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
				return false
			}
		}
		return true
	}
	return false
}

// normalizeRef accepts refs as people and models type them: quoted,
// surrounded by spaces or in capitals.
func normalizeRef(ref string) string {
	return strings.ToLower(strings.Trim(ref, " \t\r\n\"'`"))
}

// Output describes a stored tool output.
type Output struct {
	Ref     string    `json:"ref"`
	Run     string    `json:"run"`
	Step    int       `json:"step"`
	CallID  string    `json:"call_id"`
	Tool    string    `json:"tool"`
	Args    string    `json:"args"`
	Bytes   int       `json:"bytes"`
	Lines   int       `json:"lines"`
	Created time.Time `json:"created"`
}

// Put stores output whole and returns its ref. run must be a valid run ID
// (see PutRun); the run record itself may be written before or after.
// Putting the same call of the same step again replaces the output under the
// same ref.
func (s *Store) Put(run string, step int, callID, tool, args string, output []byte) (string, error) {
	if err := checkRunID(run); err != nil {
		return "", err
	}
	if err := checkStep(step); err != nil {
		return "", err
	}
	if output == nil {
		output = []byte{}
	}
	out := Output{
		Run:     run,
		Step:    step,
		CallID:  callID,
		Tool:    tool,
		Args:    args,
		Bytes:   len(output),
		Lines:   countLines(output),
		Created: time.Now().UTC(),
	}

	s.wmu.Lock()
	defer s.wmu.Unlock()
	err := s.updateSized(int64(len(output)), func(txn *badger.Txn) error {
		ref, err := allocRef(txn, out)
		if err != nil {
			return err
		}
		out.Ref = ref
		meta, err := json.Marshal(out)
		if err != nil {
			return err
		}
		if err := putBlob(txn, outputPrefix(ref), output); err != nil {
			return err
		}
		if err := txn.Set(metaKey(ref), meta); err != nil {
			return err
		}
		return txn.Set(indexKey(run, ref), nil)
	})
	if err != nil {
		return "", s.errTxn("storing the output of "+tool, err)
	}
	return out.Ref, nil
}

// allocRef picks the ref for out: refFor(run, callID), or if that holds
// another call of the run, the first derived ref that is free or holds this
// very call (same step, call, tool and arguments).
func allocRef(txn *badger.Txn, out Output) (string, error) {
	for i := 0; ; i++ {
		ref := refFor(out.Run, out.CallID)
		if i > 0 {
			ref = refFrom(out.Run, out.CallID, strconv.Itoa(out.Step), strconv.Itoa(i))
		}
		old, err := getMeta(txn, ref)
		if errors.Is(err, ErrNotFound) {
			return ref, nil
		}
		if err != nil {
			return "", err
		}
		if old.Run == out.Run && old.Step == out.Step && old.CallID == out.CallID &&
			old.Tool == out.Tool && old.Args == out.Args {
			return ref, nil
		}
	}
}

// getMeta reads the metadata of ref; if it is damaged, the error is a
// *metaError.
func getMeta(txn *badger.Txn, ref string) (Output, error) {
	var out Output
	item, err := txn.Get(metaKey(ref))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return out, refNotFound(ref)
	}
	if err != nil {
		return out, err
	}
	err = readValue(item, func(v []byte) error { return json.Unmarshal(v, &out) })
	if err != nil {
		return out, &metaError{ref, err}
	}
	return out, nil
}

// metaError is damaged output metadata.
type metaError struct {
	ref string
	err error
}

func (e *metaError) Error() string { return e.err.Error() }
func (e *metaError) Unwrap() error { return e.err }

// damagedOutput turns a failure to read output ref into an ErrDamaged
// error, keeping errors of this package as they are.
func (s *Store) damagedOutput(ref string, err error) error {
	var in *inputError
	if err == nil || errors.Is(err, ErrNotFound) || errors.As(err, &in) {
		return err
	}
	return s.damagedRecord("output "+ref, err)
}

// Meta returns the metadata of the output stored under ref.
func (s *Store) Meta(ref string) (Output, error) {
	ref = normalizeRef(ref)
	if !validRef(ref) {
		return Output{}, refNotFound(ref)
	}
	var out Output
	err := s.view(func(txn *badger.Txn) error {
		var err error
		out, err = getMeta(txn, ref)
		return s.damagedOutput(ref, err)
	})
	if err != nil {
		return Output{}, s.errTxn("reading output "+ref, err)
	}
	return out, nil
}

// Get returns the output stored under ref, byte for byte.
func (s *Store) Get(ref string) ([]byte, error) {
	_, data, err := s.get(ref)
	return data, err
}

func (s *Store) get(ref string) (Output, []byte, error) {
	ref = normalizeRef(ref)
	if !validRef(ref) {
		return Output{}, nil, refNotFound(ref)
	}
	var (
		out  Output
		data []byte
	)
	err := s.view(func(txn *badger.Txn) error {
		var err error
		if out, err = getMeta(txn, ref); err != nil {
			return s.damagedOutput(ref, err)
		}
		data, err = getBlob(txn, outputPrefix(ref))
		if errors.Is(err, errNoBlob) {
			err = errors.New("its metadata has no data")
		}
		return s.damagedOutput(ref, err)
	})
	if err != nil {
		return Output{}, nil, s.errTxn("reading output "+ref, err)
	}
	return out, data, nil
}

// List returns the metadata of the outputs of run, or of every run if run
// is empty, oldest first. An output whose metadata is damaged is left out
// and reported to Options.Warn.
func (s *Store) List(run string) ([]Output, error) {
	if run != "" {
		if err := checkRunID(run); err != nil {
			return nil, err
		}
	}
	var outs []Output
	err := s.view(func(txn *badger.Txn) error {
		if run == "" {
			return s.scanMeta(txn, func(o Output) { outs = append(outs, o) })
		}
		prefix := indexPrefix(run)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			ref := string(it.Item().Key()[len(prefix):])
			o, err := getMeta(txn, ref)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			var me *metaError
			if errors.As(err, &me) {
				s.skip("output "+ref, err)
				continue
			}
			if err != nil {
				return err
			}
			outs = append(outs, o)
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("listing outputs", err)
	}
	slices.SortStableFunc(outs, func(a, b Output) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	return outs, nil
}

// scanMeta calls f with the metadata of every output, leaving out (and
// reporting to Options.Warn) the damaged ones.
func (s *Store) scanMeta(txn *badger.Txn, f func(Output)) error {
	prefix := []byte(nsMeta)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		var o Output
		if err := readValue(it.Item(), func(v []byte) error { return json.Unmarshal(v, &o) }); err != nil {
			s.skip("output "+refOf(it.Item().Key()), err)
			continue
		}
		f(o)
	}
	return nil
}

// refOf returns the ref of a metadata key, m/<ref>/.
func refOf(k []byte) string {
	return strings.TrimSuffix(string(k[len(nsMeta):]), "/")
}

// Page is a range of lines of a stored output.
type Page struct {
	Ref string
	// Start and End are the first and last line in Text, 1-based and
	// inclusive; End < Start when the output is empty.
	Start, End int
	// Total is the number of lines of the output.
	Total int
	// Text holds the lines, each as "N: text" without its line ending,
	// separated by newlines. A line longer than 2,000 characters
	// (maxLineChars) is cut and says how much is left out.
	Text string
}

// Page returns count lines of the output under ref from line start (1-based).
// count is DefaultPageLines if not positive and at most MaxPageLines; the
// page also ends before its text would pass maxChars characters, or
// 16,000 (maxPageChars) when maxChars is not positive or larger (it always
// holds start itself). A start past the last line is an error that says how many
// lines there are.
func (s *Store) Page(ref string, start, count, maxChars int) (Page, error) {
	maxChars = pageChars(maxChars)
	out, err := s.Meta(ref)
	if err != nil {
		return Page{}, err
	}
	if count <= 0 {
		count = DefaultPageLines
	}
	count = min(count, MaxPageLines)
	start = max(start, 1)
	p := Page{Ref: out.Ref, Start: start, End: start - 1, Total: out.Lines}
	if out.Lines == 0 {
		if start > 1 {
			return Page{}, inputErrorf("output %s is empty; ask for start_line 1", out.Ref)
		}
		return p, nil
	}
	if start > out.Lines {
		return Page{}, inputErrorf("output %s has %d lines; ask for start_line <= %d", out.Ref, out.Lines, out.Lines)
	}
	var b strings.Builder
	chars := 0
	err = s.scanLines(out.Ref, start, func(n int, line []byte) bool {
		if n >= start+count {
			return false
		}
		entry := strconv.Itoa(n) + ": " + cutLine(line, maxLineChars)
		size := utf8.RuneCountInString(entry)
		if n > start {
			size++ // the newline before the entry
			if chars+size > maxChars {
				return false
			}
			b.WriteByte('\n')
		}
		chars += size
		b.WriteString(entry)
		p.End = n
		return true
	})
	if err != nil {
		return Page{}, err
	}
	p.Text = b.String()
	return p, nil
}

// GrepResult holds the lines of a stored output that match a pattern.
type GrepResult struct {
	Ref, Pattern string
	// Matches counts all matching lines, Shown those in Text, Total all
	// lines of the output.
	Matches, Shown, Total int
	// Text holds the matching lines as "N: text", separated by newlines.
	// A long line is shown around its first match.
	Text string
}

// Grep returns the lines of the output under ref that match pattern (Go
// RE2 syntax), at most max of them (50 if not positive, at most
// MaxGrepMatches) and at most maxChars characters of text (16,000, as for
// Page, when maxChars is not positive or larger). Lines are matched without
// their line ending.
func (s *Store) Grep(ref, pattern string, max, maxChars int) (GrepResult, error) {
	maxChars = pageChars(maxChars)
	re, err := regexp.Compile(pattern)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return GrepResult{}, inputErrorf("invalid regular expression %q: %s (use Go RE2 syntax: no lookaround or backreferences)", pattern, msg)
	}
	out, err := s.Meta(ref)
	if err != nil {
		return GrepResult{}, err
	}
	if max <= 0 {
		max = defaultGrepMatches
	}
	max = min(max, MaxGrepMatches)
	r := GrepResult{Ref: out.Ref, Pattern: pattern, Total: out.Lines}
	var b strings.Builder
	chars := 0
	full := false
	err = s.scanLines(out.Ref, 1, func(n int, line []byte) bool {
		loc := re.FindIndex(line)
		if loc == nil {
			return true
		}
		r.Matches++
		if full || r.Shown == max {
			full = true
			return true
		}
		entry := strconv.Itoa(n) + ": " + excerpt(line, loc[0], maxLineChars)
		size := utf8.RuneCountInString(entry)
		if r.Shown > 0 {
			size++ // the newline before the entry
			if chars+size > maxChars {
				full = true
				return true
			}
			b.WriteByte('\n')
		}
		chars += size
		b.WriteString(entry)
		r.Shown++
		return true
	})
	if err != nil {
		return GrepResult{}, err
	}
	r.Text = b.String()
	return r, nil
}

// scanLines calls f with each line of the output under ref from line start
// (1-based), without its line ending, until f returns false. The line is
// valid only during the call. Outputs are read chunk by chunk, straight from
// Badger's memory-mapped files, and lines before start are only counted, so
// paging through a large output costs little.
func (s *Store) scanLines(ref string, start int, f func(n int, line []byte) bool) error {
	ls := lineSplitter{skip: start - 1, emit: f}
	err := s.view(func(txn *badger.Txn) error {
		prefix := outputPrefix(ref)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid() && !ls.stopped; it.Next() {
			item := it.Item()
			if len(item.Key()) != len(prefix)+4 {
				continue // the length header
			}
			if err := readValue(item, func(v []byte) error {
				ls.feed(v)
				return nil
			}); err != nil {
				return s.damagedRecord("output "+ref, err)
			}
		}
		ls.end()
		return nil
	})
	if err != nil {
		return s.errTxn("reading output "+ref, err)
	}
	return nil
}

// lineSplitter turns a stream of chunks into numbered lines.
type lineSplitter struct {
	n       int    // lines seen
	skip    int    // lines still to skip before emitting
	carry   []byte // a line that started in an earlier chunk
	stopped bool
	emit    func(n int, line []byte) bool
}

func (l *lineSplitter) feed(chunk []byte) {
	if l.skip > 0 {
		// Whole chunks of skipped lines are only counted.
		if c := bytes.Count(chunk, []byte{'\n'}); c < l.skip {
			l.n += c
			l.skip -= c
			l.carry = l.carry[:0]
			return
		}
		for l.skip > 0 {
			i := bytes.IndexByte(chunk, '\n')
			chunk = chunk[i+1:]
			l.n++
			l.skip--
		}
		l.carry = l.carry[:0]
	}
	for len(chunk) > 0 && !l.stopped {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.carry = append(l.carry, chunk...)
			return
		}
		line := chunk[:i]
		if len(l.carry) > 0 {
			l.carry = append(l.carry, line...)
			line = l.carry
		}
		chunk = chunk[i+1:]
		l.n++
		l.stopped = !l.emit(l.n, bytes.TrimSuffix(line, []byte{'\r'}))
		l.carry = l.carry[:0]
	}
}

// end emits a last line that has no newline.
func (l *lineSplitter) end() {
	if len(l.carry) > 0 && !l.stopped && l.skip == 0 {
		l.n++
		l.stopped = !l.emit(l.n, bytes.TrimSuffix(l.carry, []byte{'\r'}))
	}
}

// countLines counts lines as people do: a final line without a newline
// counts, a final newline does not start another.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// cutLine returns line as valid UTF-8, cut after max characters with a note
// of how many bytes were left out.
func cutLine(line []byte, max int) string {
	if len(line) <= max {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	end := runePrefix(line, max)
	if end == len(line) {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	return strings.ToValidUTF8(string(line[:end]), "\uFFFD") +
		fmt.Sprintf(" [... %d more bytes]", len(line)-end)
}

// excerpt returns line as valid UTF-8, or if it is longer than max
// characters, max characters around offset lo (a match) with notes of what
// was left out on either side.
func excerpt(line []byte, lo, max int) string {
	if len(line) <= max || utf8.RuneCount(line) <= max {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	// Centre the match, keeping its start on a rune boundary.
	before := max / 4
	start := lo
	for i := 0; i < before && start > 0; i++ {
		_, size := utf8.DecodeLastRune(line[:start])
		start -= size
	}
	end := start + runePrefix(line[start:], max)
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[... %d earlier bytes] ", start)
	}
	b.WriteString(strings.ToValidUTF8(string(line[start:end]), "\uFFFD"))
	if end < len(line) {
		fmt.Fprintf(&b, " [... %d more bytes]", len(line)-end)
	}
	return b.String()
}

// runePrefix returns the length in bytes of the first max runes of b (each
// invalid byte counting as one rune).
func runePrefix(b []byte, max int) int {
	off := 0
	for n := 0; n < max && off < len(b); n++ {
		_, size := utf8.DecodeRune(b[off:])
		off += size
	}
	return off
}

// runeSuffix returns the offset in b of its last max runes.
func runeSuffix(b []byte, max int) int {
	off := len(b)
	for n := 0; n < max && off > 0; n++ {
		_, size := utf8.DecodeLastRune(b[:off])
		off -= size
	}
	return off
}

// pageChars is the character bound of a page or a grep: maxChars when it
// is positive and below maxPageChars, else maxPageChars.
func pageChars(maxChars int) int {
	if maxChars <= 0 {
		return maxPageChars
	}
	return min(maxChars, maxPageChars)
}
