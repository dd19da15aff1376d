package reviewtest

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// A streamed request is answered with events whose pieces, cut inside
// characters with chunk_bytes, join to the scripted text; the usage event
// comes only when asked for, and [DONE] ends the stream.
func TestServeStream(t *testing.T) {
	srv := Serve(t, `[{"content": "é世😀", "chunk_bytes": 1,
	  "tool_calls": [{"name": "read_file", "arguments": {"path": "a\"b"}}]}, {"content": "x"}]`)
	for i, body := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`,
	} {
		res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		var events []string
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events = append(events, d)
			}
		}
		res.Body.Close()
		if events[len(events)-1] != "[DONE]" {
			t.Errorf("last event %q", events[len(events)-1])
		}
		usage := strings.Contains(events[len(events)-2], `"usage"`)
		if usage != (i == 0) {
			t.Errorf("request %d: usage event %v", i+1, usage)
		}
		if i == 0 {
			var content []byte
			invalid := false
			for _, e := range events {
				if _, after, ok := strings.Cut(e, `"content":"`); ok && !strings.HasPrefix(after, `"`) {
					piece, _, _ := strings.Cut(after, `"`)
					invalid = invalid || !utf8.ValidString(piece)
					content = append(content, piece...)
				}
			}
			if string(content) != "é世😀" || !invalid {
				t.Errorf("content pieces join to %q (some not UTF-8: %v)", content, invalid)
			}
			if !strings.Contains(strings.Join(events, "\n"), `"arguments":"\\"`) {
				t.Errorf("arguments not in escaped pieces: %s", strings.Join(events, "\n"))
			}
		}
	}
	if !bytes.Contains(srv.Requests()[0].Body, []byte(`"stream":true`)) {
		t.Error("request not recorded")
	}
}
