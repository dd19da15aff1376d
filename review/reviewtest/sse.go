package reviewtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// defaultPiece is the most bytes of text an event carries when a step
// does not set chunk_bytes: about two tokens, cut between characters.
const defaultPiece = 8

// wantsStream reports whether a request asks for server-sent events.
func (q *request) wantsStream() bool { return q.req != nil && q.req.Stream }

// wantsUsage reports whether a streamed request asks for the usage event.
func (q *request) wantsUsage() bool {
	return q.req != nil && q.req.StreamOptions != nil && q.req.StreamOptions.IncludeUsage
}

// events renders step st as the data of the chat.completion.chunk events
// OpenAI streams: the role, reasoning, content and each tool call (its
// ID and name, then its arguments) in pieces, the finish reason, and the
// usage if asked for; s.mu is held.
func (s *Server) events(n int, st Step, q *request) [][]byte {
	c, err := s.build(n, st, q)
	if err != nil {
		return [][]byte{errorJSON(ErrorBody{Message: "reviewtest: " + err.Error(), Type: "server_error"})}
	}
	id, _ := json.Marshal(c.ID)
	model, _ := json.Marshal(c.Model)
	head := fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_reviewtest","choices":[`, id, c.Created, model)
	event := func(delta string, finish string) []byte {
		f := "null"
		if finish != "" {
			f = strconv.Quote(finish)
		}
		return []byte(head + `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}]}`)
	}
	m := c.Choices[0].Message
	out := [][]byte{event(`{"role":"assistant","content":""}`, "")}
	for _, p := range pieces(m.Reasoning, st.ChunkBytes) {
		out = append(out, event(`{"reasoning_content":`+rawString(p)+`}`, ""))
	}
	if m.Content != nil {
		for _, p := range pieces(*m.Content, st.ChunkBytes) {
			out = append(out, event(`{"content":`+rawString(p)+`}`, ""))
		}
	}
	for i, tc := range m.ToolCalls {
		name, _ := json.Marshal(tc.Function.Name)
		callID, _ := json.Marshal(tc.ID)
		out = append(out, event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`, i, callID, name), ""))
		for _, p := range pieces(tc.Function.Arguments, st.ChunkBytes) {
			out = append(out, event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, rawString(p)), ""))
		}
	}
	out = append(out, event(`{}`, c.Choices[0].FinishReason))
	if q.wantsUsage() {
		u, _ := json.Marshal(c.Usage)
		out = append(out, []byte(fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_reviewtest","choices":[],"usage":%s}`, id, c.Created, model, u)))
	}
	return append(out, []byte("[DONE]"))
}

// pieces cuts text into pieces of size bytes, even inside a character;
// size 0 cuts pieces of up to defaultPiece bytes between characters.
func pieces(text string, size int) []string {
	var out []string
	for len(text) > 0 {
		n := size
		if n == 0 {
			n = defaultPiece
			for n < len(text) && n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
			if n == 0 {
				_, n = utf8.DecodeRuneInString(text)
			}
		}
		n = min(n, len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// rawString writes s as a JSON string with only what JSON requires
// escaped, and any bytes that are not UTF-8 left as they are: a server
// streaming bytes sends half a character so.
func rawString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stream writes answer a as server-sent events: the headers at once, then
// after the delay each event in two writes flushed apart (so a read may
// end inside an event, even inside a character), stalling or ending early
// where the step says. What was written is recorded as the response.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, n int, a answer) {
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(a.status)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	var sent bytes.Buffer
	defer func() {
		s.mu.Lock()
		s.record(fmt.Sprintf("resp-%03d.json", n), sent.Bytes())
		s.answered(n, a.status)
		s.mu.Unlock()
	}()
	wait := func(d time.Duration) bool {
		var c <-chan time.Time
		if d >= 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			c = t.C
		}
		select {
		case <-c:
			return true
		case <-r.Context().Done():
		case <-s.closed:
		}
		return false
	}
	if a.delay > 0 && !wait(a.delay) {
		return
	}
	for i, e := range a.events {
		if a.stall > 0 && i == a.stall {
			wait(-1) // until the client gives up
			return
		}
		if a.cut > 0 && i == a.cut {
			return
		}
		ev := append(append([]byte("data: "), e...), "\n\n"...)
		half := len(ev) / 2
		for _, part := range [][]byte{ev[:half], ev[half:]} {
			if _, err := w.Write(part); err != nil {
				return
			}
			sent.Write(part)
			flush()
		}
	}
}
