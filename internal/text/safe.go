package text

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Text from a repository, a model or a configuration file is printed to
// terminals and to CI logs, and both act on what they read: a terminal on
// control characters and escape sequences (colours, cursor moves, window
// titles, hyperlinks, a full reset), the GitHub Actions runner on workflow
// commands. The runner splits its log at "\n", "\r" and "\r\n", trims each
// line's leading white space and takes a line that then starts with "::"
// for a command ("::error::…", "::add-mask::…", "::stop-commands::…"); it
// also takes its legacy form "##[command]…" anywhere in a line.

// Clean removes what a terminal would act on rather than show: ANSI escape
// sequences (CSI, OSC, DCS and the other string sequences, two-byte
// escapes), in their ESC form and as C1 characters, and every other C0 or
// C1 control character and DEL, except tab, line feed and carriage return.
// Invalid UTF-8 becomes U+FFFD. It keeps line structure, for writers that
// escape line breaks themselves (GitHub workflow command data).
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	clean(&b, s)
	return b.String()
}

// Safe makes s safe to print to a terminal or a GitHub Actions log: Clean,
// then a carriage return that does not end a line ("\r\n") becomes a line
// feed, since the runner starts a line there and a terminal would let the
// text after it overwrite what came before. A line that would be a workflow
// command, "::" after any white space, gets a backslash before the "::",
// and "##[" becomes "#\#[". Safe(Safe(s)) == Safe(s).
func Safe(s string) string {
	s = Clean(s)
	if isNeutral(s, false) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	neutralize(&b, s, false)
	return b.String()
}

// isClean reports whether Clean would leave s as it is: printable ASCII,
// tab and line breaks, or valid UTF-8 without C1 controls.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// clean writes s to b without escape sequences and control characters.
func clean(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
			i++
		case c == 0x1b:
			i = skipEscape(s, i+1)
		case c < 0x80:
			i++ // another C0 control or DEL
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteRune(utf8.RuneError)
			case r == 0x9b: // CSI
				i = skipCSI(s, i)
			case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS, SOS, OSC, PM, APC
				i = skipString(s, i)
			case r >= 0x80 && r <= 0x9f:
				// another C1 control
			default:
				b.WriteString(s[i-n : i])
			}
		}
	}
}

// skipEscape returns the end of the escape sequence whose ESC ends at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF escapes: intermediates, then a final byte (ESC ( B, ESC # 8);
	// Fp, Fe and Fs escapes: a final byte alone (ESC 7, ESC c).
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI returns the end of a control sequence whose introducer ends at i:
// parameter and intermediate bytes, then the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the end of a control string (OSC, DCS...) whose
// introducer ends at i: it runs to BEL or ST (ESC \ or U+009C). One left
// open ends at the line's end, so it cannot swallow the rest of the text.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		case s[i] == '\n':
			return i
		}
		i++
	}
	return i
}

// isNeutral reports whether neutralize would leave the clean text s as it
// is; mid says s continues a line already begun with more than white space.
func isNeutral(s string, mid bool) bool {
	if strings.Contains(s, "##[") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
			return false
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		if !mid && strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			return false
		}
		mid = false
	}
	return true
}

// neutralize writes the clean text s to b with its bare carriage returns
// made line feeds and its workflow commands broken, and reports whether it
// ends inside a line with more than white space on it. mid says s continues
// such a line.
func neutralize(b *strings.Builder, s string, mid bool) bool {
	lineStart := !mid
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("\r\n")
			i += 2
			lineStart = true
			continue
		case c == '\r' || c == '\n':
			b.WriteByte('\n')
			i++
			lineStart = true
			continue
		case lineStart:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			lineStart = false
			if strings.HasPrefix(s[i:], "::") {
				b.WriteByte('\\')
			}
		}
		if strings.HasPrefix(s[i:], "##[") {
			b.WriteString(`#\#[`)
			i += 3
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return !lineStart
}

// maxPending bounds what a Writer holds back waiting for the end of a line.
const maxPending = 64 << 10

// Writer passes what is written to it through Safe, a whole line at a
// time, so that a line's start is known however the text was split into
// writes. It holds an unfinished last line back until it is ended, the
// Writer is flushed, or it grows past 64 KiB. It is safe for concurrent
// use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	// mid says the line being written already has more than white space
	// on it, after a long line was passed on in pieces.
	mid bool
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write passes on the whole lines of what it has been given so far.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	end := bytes.LastIndexByte(w.buf, '\n') + 1
	if end == 0 && len(w.buf) > maxPending {
		end = cut(w.buf)
	}
	if end == 0 {
		return len(p), nil
	}
	if err := w.emit(end); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on the unfinished last line.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	return w.emit(len(w.buf))
}

// emit writes buf[:end] neutralized and keeps the rest.
func (w *Writer) emit(end int) error {
	var b strings.Builder
	w.mid = neutralize(&b, Clean(string(w.buf[:end])), w.mid)
	w.buf = append(w.buf[:0], w.buf[end:]...)
	_, err := io.WriteString(w.w, b.String())
	return err
}

// cut is where a line too long to hold back is split: after an ASCII
// character that cannot begin "##[", "\r\n" or an escape sequence, so the
// split is at a rune boundary and changes nothing. (A long run of such
// characters is split at a rune boundary; a sequence split there loses its
// ESC, so it cannot act.)
func cut(b []byte) int {
	for end := len(b); end > 0 && end > len(b)-256; end-- {
		if c := b[end-1]; c < 0x80 && c != '#' && c != '\r' && c != 0x1b {
			return end
		}
	}
	end := len(b)
	for end > 0 && !utf8.RuneStart(b[end-1]) {
		end--
	}
	if end > 0 && end-1 >= len(b)-utf8.UTFMax && !utf8.FullRune(b[end-1:]) {
		return end - 1
	}
	return len(b)
}
