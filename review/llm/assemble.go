package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/reviewdev/review/review/llm/wire"
)

// maxStreamCalls bounds the tool calls one streamed answer may open: a
// tool call index is the server's text, and an answer with more calls than
// this is not a review's.
const maxStreamCalls = 1024

// errorEvent is an error a server sent as an event of the stream, after
// the answer started.
type errorEvent struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

func (e *errorEvent) Error() string { return "error event: " + e.Message }

// callParts is a tool call as its pieces arrive.
type callParts struct {
	index      int
	id         string
	name, args []byte
}

// assembler rebuilds a chat completion from the events of a stream:
// content, reasoning_content and refusal concatenated, tool calls by index
// with their arguments concatenated, the last finish_reason and the last
// usage object, kept as it was received.
type assembler struct {
	id, model, fingerprint string
	created                int64
	content, reasoning     []byte
	refusal                []byte
	calls                  []*callParts
	finish                 string
	usage                  json.RawMessage
	// events counts the data events; texts those that carried text, about
	// one token each from most servers.
	events, texts int
	choices       bool // an event had a choice
}

// size is the text assembled so far, as answerSize counts it (refusal
// too; reasoning apart).
func (a *assembler) size() int {
	n := len(a.content) + len(a.refusal)
	for _, c := range a.calls {
		n += len(c.name) + len(c.args)
	}
	return n
}

// add reads one event's data (the JSON after "data:").
func (a *assembler) add(data []byte) error {
	c, err := wire.DecodeChunk(data)
	if err != nil {
		return fmt.Errorf("event %d is not a chat completion chunk: %v", a.events+1, err)
	}
	a.events++
	if e, ok := c.StreamError(); ok {
		return &errorEvent{Message: e.Message, Type: e.Type, Code: e.Code}
	}
	a.note(c)
	text := false
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // one answer was asked for
		}
		got, err := a.addDelta(ch.Delta)
		if err != nil {
			return fmt.Errorf("event %d: %v", a.events, err)
		}
		text = text || got
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
	if text {
		a.texts++
	}
	return nil
}

// note keeps what describes the whole completion rather than a piece of
// it: the first ID, model, fingerprint and creation time any event gave,
// and the last usage object.
func (a *assembler) note(c *wire.Chunk) {
	if a.id == "" {
		a.id = c.ID
	}
	if a.model == "" {
		a.model = c.Model
	}
	if a.fingerprint == "" {
		a.fingerprint = c.SystemFingerprint
	}
	if a.created == 0 {
		a.created = c.Created
	}
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		a.usage = append(a.usage[:0], c.Usage...)
	}
}

// addDelta adds the answer's piece in one event, and reports whether it
// carried any text.
func (a *assembler) addDelta(d wire.Delta) (bool, error) {
	a.choices = true
	if d.Role != "" && d.Role != "assistant" {
		return false, fmt.Errorf("the answer's role is %q, not assistant", d.Role)
	}
	text := false
	for _, f := range []struct {
		raw json.RawMessage
		dst *[]byte
	}{{d.Content, &a.content}, {d.ReasoningContent, &a.reasoning}, {d.Refusal, &a.refusal}} {
		n := len(*f.dst)
		var err error
		if *f.dst, err = appendJSONString(*f.dst, f.raw); err != nil {
			return text, err
		}
		text = text || len(*f.dst) > n
	}
	for _, tc := range d.ToolCalls {
		got, err := a.addCall(tc)
		if err != nil {
			return text, err
		}
		text = text || got
	}
	return text, nil
}

// addCall adds a piece of a tool call, and reports whether it carried any
// of the call's name or arguments.
func (a *assembler) addCall(tc wire.DeltaCall) (bool, error) {
	p, err := a.call(tc.Index, tc.ID)
	if err != nil {
		return false, err
	}
	if tc.ID != "" && p.id == "" {
		p.id = tc.ID
	}
	name, err := appendJSONString(nil, tc.Function.Name)
	if err != nil {
		return false, err
	}
	// Most servers send the name once; some repeat it whole in every
	// piece, a few stream it in pieces.
	if len(name) > 0 && !bytes.Equal(name, p.name) {
		p.name = append(p.name, name...)
	}
	n := len(p.args)
	if p.args, err = appendJSONString(p.args, tc.Function.Arguments); err != nil {
		return false, err
	}
	return len(p.args) > n || len(name) > 0, nil
}

// call finds the tool call a piece belongs to, opening a new one when
// needed. Servers that send no index (a few local ones) start a new call
// with a new ID and continue the last one otherwise.
func (a *assembler) call(index *int, id string) (*callParts, error) {
	if index == nil {
		if len(a.calls) == 0 || (id != "" && a.calls[len(a.calls)-1].id != "" && a.calls[len(a.calls)-1].id != id) {
			return a.open(len(a.calls))
		}
		return a.calls[len(a.calls)-1], nil
	}
	if *index < 0 {
		return nil, fmt.Errorf("tool call index %d is negative", *index)
	}
	for _, p := range a.calls {
		if p.index == *index {
			return p, nil
		}
	}
	return a.open(*index)
}

func (a *assembler) open(index int) (*callParts, error) {
	if len(a.calls) >= maxStreamCalls {
		return nil, fmt.Errorf("more than %d tool calls in one answer", maxStreamCalls)
	}
	p := &callParts{index: index}
	a.calls = append(a.calls, p)
	return p, nil
}

// errNoChoices is a stream that ended without any part of an answer.
var errNoChoices = errors.New("the event stream carried no answer (no choices)")

// body renders what arrived as the chat completion a server that does not
// stream would have sent, so a streamed step is recorded, replayed and
// decoded as any other. Text is what the events carried, byte for byte
// once the pieces are joined; only what is not UTF-8 even then becomes
// U+FFFD, as a whole response's JSON decoding would have it.
func (a *assembler) body() ([]byte, error) {
	if !a.choices {
		return nil, errNoChoices
	}
	m := wire.Answer{
		Role:             "assistant",
		ReasoningContent: wtf8(a.reasoning),
	}
	if refusal := wtf8(a.refusal); refusal != "" {
		m.Refusal = &refusal
	}
	content := wtf8(a.content)
	if content != "" || len(a.calls) == 0 {
		m.Content = &content
	}
	for _, p := range a.calls {
		m.ToolCalls = append(m.ToolCalls, wire.ToolCall{ID: p.id, Type: wire.TypeFunction,
			Function: wire.FunctionCall{Name: wtf8(p.name), Arguments: wtf8(p.args)}})
	}
	w := wire.Completion{
		ID:                a.id,
		Object:            "chat.completion",
		Created:           a.created,
		Model:             a.model,
		Choices:           []wire.Choice{{Message: m, FinishReason: a.finish}},
		Usage:             a.usage,
		SystemFingerprint: a.fingerprint,
	}
	return w.Encode()
}

// appendJSONString appends the value of the JSON string raw to dst. Null
// and absence append nothing. Unlike encoding/json it keeps bytes that are
// not UTF-8 as they are, and a \u escape of a lone surrogate as its
// three-byte (WTF-8) form, so the halves of a character split between two
// events join up again; wtf8 finishes the job on the whole text.
func appendJSONString(dst []byte, raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return dst, nil
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, fmt.Errorf("expected a JSON string, got %.40q", raw)
	}
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return dst, errors.New("unescaped quote in a JSON string")
		case c < 0x20:
			return dst, fmt.Errorf("control character %#x in a JSON string", c)
		case c >= 0xA0 && c <= 0xBF && len(dst) > 0 && dst[len(dst)-1] == 0xED:
			// Raw bytes of a surrogate, which UTF-8 forbids: each is
			// U+FFFD now, as encoding/json has them, so that wtf8 only
			// ever joins the surrogates of \u escapes. (A lone 0xED at
			// the end is raw: escapes add three bytes at once.)
			dst = utf8.AppendRune(utf8.AppendRune(dst[:len(dst)-1], utf8.RuneError), utf8.RuneError)
			i++
		case c != '\\':
			dst = append(dst, c)
			i++
		default:
			var (
				n   int
				err error
			)
			if dst, n, err = appendEscape(dst, s[i:]); err != nil {
				return dst, err
			}
			i += n
		}
	}
	return dst, nil
}

// appendEscape appends the value of the escape that opens s, a backslash
// and what follows it within a JSON string, and says how many bytes of s
// the escape took.
func appendEscape(dst, s []byte) ([]byte, int, error) {
	if len(s) < 2 {
		return dst, 0, errors.New("JSON string ends in a backslash")
	}
	switch e := s[1]; e {
	case '"', '\\', '/':
		dst = append(dst, e)
	case 'b':
		dst = append(dst, '\b')
	case 'f':
		dst = append(dst, '\f')
	case 'n':
		dst = append(dst, '\n')
	case 'r':
		dst = append(dst, '\r')
	case 't':
		dst = append(dst, '\t')
	case 'u':
		return appendUnicodeEscape(dst, s)
	default:
		return dst, 0, fmt.Errorf("bad escape \\%c in a JSON string", e)
	}
	return dst, 2, nil
}

// appendUnicodeEscape appends the character of the \u escape that opens s,
// and says how many bytes of s it took. A high surrogate followed at once
// by the escape of a low one is the pair's character (twelve bytes); a
// surrogate on its own is kept in its WTF-8 form, since its other half may
// open the next event.
func appendUnicodeEscape(dst, s []byte) ([]byte, int, error) {
	r, ok := hex4(s[2:])
	if !ok {
		return dst, 0, errors.New(`bad \u escape in a JSON string`)
	}
	if rest := s[6:]; r >= 0xD800 && r < 0xDC00 && len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
		if lo, ok := hex4(rest[2:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return utf8.AppendRune(dst, 0x10000+(r-0xD800)<<10+(lo-0xDC00)), 12, nil
		}
	}
	return appendWTF8(dst, r), 6, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(v), err == nil
}

// appendWTF8 appends r as UTF-8, or a surrogate as the three bytes UTF-8
// would give it were it allowed.
func appendWTF8(dst []byte, r rune) []byte {
	if r < 0xD800 || r >= 0xE000 {
		return utf8.AppendRune(dst, r)
	}
	return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// wtf8 makes joined pieces a string: surrogate halves that met become
// their character; a lone surrogate becomes one U+FFFD and any other byte
// that is not UTF-8 one U+FFFD each, as encoding/json decodes them.
func wtf8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		if hi, ok := surrogateAt(b, i); ok {
			if lo, ok := surrogateAt(b, i+3); ok && hi < 0xDC00 && lo >= 0xDC00 {
				out = utf8.AppendRune(out, 0x10000+(hi-0xD800)<<10+(lo-0xDC00))
				i += 6
				continue
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

// surrogateAt decodes the three-byte form of a surrogate at b[i:].
func surrogateAt(b []byte, i int) (rune, bool) {
	if i+3 > len(b) || b[i] != 0xED || b[i+1] < 0xA0 || b[i+1] > 0xBF || b[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
}
