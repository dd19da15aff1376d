package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/review/reviewtest"
)

// streamScript answers with reasoning, text and two tool calls whose
// arguments hold characters of two, three and four bytes.
const streamScript = `{"reasoning_content": "Lisons d'abord le fichier — 読む 😀",
  "content": "Voilà: ünïcödé 世界 🎉 <b>&amp;</b>",
  "tool_calls": [
    {"id": "call_a", "name": "read_file", "arguments": {"path": "dé/世界.go", "note": "😀 \"quoted\" \\ back"}},
    {"id": "call_b", "name": "list_files", "arguments": {}}],
  "usage": {"prompt_tokens": 300, "completion_tokens": 20, "cached_tokens": 256, "reasoning_tokens": 7, "prompt_cache_hit_tokens": 256}`

func streamClient(url string, log *retryLog, edit ...func(*ClientConfig)) *Client {
	return newTestClient(url, log, append([]func(*ClientConfig){func(c *ClientConfig) { c.Stream = true }}, edit...)...)
}

// message is the first choice's message of a completion body, decoded.
func message(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var resp struct {
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Choices) == 0 {
		t.Fatalf("not a completion: %v\n%s", err, body)
	}
	m := resp.Choices[0].Message
	m["finish_reason"] = resp.Choices[0].FinishReason
	return m
}

// A streamed answer, cut into pieces of 1 to 5 bytes (inside characters)
// or between characters, is the same reply as the same answer sent whole:
// content, reasoning, tool calls, finish reason and usage; its recorded
// response is the same message.
func TestStreamEqualsWhole(t *testing.T) {
	whole := reviewtest.Serve(t, "["+streamScript+"}]")
	want, err := newTestClient(whole.URL, nil).Complete(context.Background(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{0, 1, 2, 3, 5} {
		t.Run(fmt.Sprintf("chunk_bytes=%d", chunk), func(t *testing.T) {
			srv := reviewtest.Serve(t, fmt.Sprintf("[%s, \"chunk_bytes\": %d}]", streamScript, chunk))
			var seen []Received
			ctx := WithReceiveHook(context.Background(), func(r Received) { seen = append(seen, r) })
			got, err := streamClient(srv.URL, nil).Complete(ctx, testRequest())
			if err != nil {
				t.Fatal(err)
			}
			noKey(t, got, err)
			if !reflect.DeepEqual(got.Message, want.Message) {
				t.Errorf("message:\n got %+v\nwant %+v", got.Message, want.Message)
			}
			if got.Reasoning != want.Reasoning || got.FinishReason != want.FinishReason || got.Usage != want.Usage {
				t.Errorf("got reasoning %q finish %q usage %+v, want %q %q %+v", got.Reasoning, got.FinishReason, got.Usage, want.Reasoning, want.FinishReason, want.Usage)
			}
			if gm, wm := message(t, got.Response), message(t, want.Response); !reflect.DeepEqual(gm, wm) {
				t.Errorf("recorded message:\n got %v\nwant %v", gm, wm)
			}
			if err := reviewtest.ValidateResponse(got.Response); err != nil {
				t.Errorf("reassembled response does not match the schema: %v\n%s", err, got.Response)
			}
			if !bytes.Contains(got.Response, []byte("<b>&amp;</b>")) {
				t.Errorf("text not kept as received: %s", got.Response)
			}
			if got.Stream == nil || got.Stream.Events < 6 || got.Stream.Bytes == 0 {
				t.Errorf("stream stats %+v", got.Stream)
			}
			if len(seen) != got.Stream.Events || seen[len(seen)-1].Tokens == 0 || seen[len(seen)-1].Bytes > got.Stream.Bytes {
				t.Errorf("receive hook saw %d events (last %+v), stream %+v", len(seen), seen[len(seen)-1], got.Stream)
			}
			req := srv.Requests()[0].Body
			if !bytes.Contains(req, []byte(`"stream":true,"stream_options":{"include_usage":true}`)) {
				t.Errorf("request does not ask for a stream with usage: %s", req)
			}
			if h := srv.Requests()[0].Header.Get("Accept"); h != "text/event-stream" {
				t.Errorf("Accept %q", h)
			}
		})
	}
}

// No first byte within the first-byte timeout fails the attempt long
// before the whole timeout, saying which phase ran out of time; a
// whole-timeout-sized first-byte limit is the whole timeout.
func TestStreamFirstByteTimeout(t *testing.T) {
	srv := reviewtest.Serve(t, `[{"content": "late", "delay": "10m", "repeat": 2}]`)
	c := streamClient(srv.URL, nil, func(c *ClientConfig) {
		c.FirstByteTimeout, c.Timeout, c.MaxAttempts = 150*time.Millisecond, 5*time.Minute, 1
	})
	start := time.Now()
	_, err := c.Complete(context.Background(), testRequest())
	var te *TimeoutError
	if err == nil || !strings.Contains(err.Error(), "sent nothing within 150ms of a streamed request") || !errors.As(err, &te) || te.Phase != PhaseFirstByte {
		t.Fatalf("err = %v", err)
	}
	// The whole timeout is five minutes: a first-byte limit that did not
	// fire would show far above a busy machine's minute.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %s", d)
	}
	c = streamClient(srv.URL, nil, func(c *ClientConfig) { c.Timeout, c.MaxAttempts = 150*time.Millisecond, 1 })
	if _, err = c.Complete(context.Background(), testRequest()); err == nil || !strings.Contains(err.Error(), "did not answer within 150ms") || !errors.As(err, &te) || te.Phase != PhaseAnswer {
		t.Fatalf("err = %v", err)
	}
}

// A stream that stalls or is cut after its first events is retried with
// a clear message, and the retry's answer is the reply; the failed
// attempt's bytes are what was received.
func TestStreamStallAndCut(t *testing.T) {
	for _, tc := range []struct{ step, msg string }{
		{`"stall_after": 3`, "stalled: nothing for 150ms in the middle of a streamed answer, after "},
		{`"cut_after": 3`, "closed the stream before the answer ended"},
	} {
		t.Run(tc.step, func(t *testing.T) {
			srv := reviewtest.Serve(t, `[{"content": "partial answer here", `+tc.step+`}, {"content": "whole answer"}]`)
			var log retryLog
			c := streamClient(srv.URL, &log, func(c *ClientConfig) { c.FirstByteTimeout = 150 * time.Millisecond })
			r, err := c.Complete(context.Background(), testRequest())
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Content != "whole answer" || r.Attempts != 2 {
				t.Errorf("content %q after %d attempts", r.Message.Content, r.Attempts)
			}
			if len(log.calls) != 1 || !strings.Contains(log.calls[0], tc.msg) {
				t.Errorf("retries: %q", log.calls)
			}
			srv2 := reviewtest.Serve(t, `[{"content": "partial answer here", `+tc.step+`}]`)
			c = streamClient(srv2.URL, nil, func(c *ClientConfig) { c.FirstByteTimeout, c.MaxAttempts = 150*time.Millisecond, 1 })
			r, err = c.Complete(context.Background(), testRequest())
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v", err)
			}
			if r == nil || !bytes.HasPrefix(r.Response, []byte("data: {")) || bytes.Contains(r.Response, []byte("[DONE]")) {
				t.Errorf("recorded response of the cut stream: %q", r.Response)
			}
		})
	}
}

// A server that refuses stream_options is asked without them; one that
// refuses streaming, or answers a streamed request whole, is asked whole
// for the rest of the run. Each is one fallback, and the answer is kept.
func TestStreamFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		feature      string
		stream       bool // the second request still streams
	}{
		{"stream_options", `[{"reject": {"\"stream_options\"": "Unrecognized request argument supplied: stream_options"}}, {"content": "a"}, {"content": "b"}]`, "stream_options", true},
		{"stream refused", `[{"reject": {"\"stream\":true": "Cannot use tools with stream"}}, {"content": "a"}, {"content": "b"}]`, "stream", false},
		{"answered whole", `{"stream": "whole", "steps": [{"content": "a"}, {"content": "b"}]}`, "stream", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := reviewtest.Serve(t, tc.script)
			c := streamClient(srv.URL, nil)
			r, err := c.Complete(context.Background(), testRequest())
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Fallbacks) != 1 || r.Fallbacks[0].Feature != tc.feature || r.Message.Content != "a" {
				t.Fatalf("fallbacks %+v, content %q", r.Fallbacks, r.Message.Content)
			}
			r, err = c.Complete(context.Background(), testRequest())
			if err != nil || len(r.Fallbacks) != 0 || r.Message.Content != "b" {
				t.Fatalf("second request: %v, fallbacks %+v, content %q", err, r.Fallbacks, r.Message.Content)
			}
			last := srv.Requests()[len(srv.Requests())-1].Body
			if got := bytes.Contains(last, []byte(`"stream":true`)); got != tc.stream {
				t.Errorf("second request streams: %v: %s", got, last)
			}
			if bytes.Contains(last, []byte("stream_options")) {
				t.Errorf("second request asks for stream_options: %s", last)
			}
			if (r.Stream != nil) != tc.stream {
				t.Errorf("stream stats %+v", r.Stream)
			}
		})
	}
}

// An error event in the middle of a stream is retried; an event stream
// with no answer in it is a bad response, recorded as received.
func TestStreamErrorEvents(t *testing.T) {
	srv := reviewtest.Serve(t, `[
	  {"raw": "data: {\"error\": {\"message\": \"The server had an error while processing your request.\", \"type\": \"server_error\"}}\n\n", "headers": {"Content-Type": "text/event-stream"}},
	  {"raw": "data: {\"object\": \"error\", \"message\": \"engine died\", \"type\": \"InternalServerError\", \"code\": 500}\n\n", "headers": {"Content-Type": "text/event-stream"}},
	  {"content": "fine"}]`)
	var log retryLog
	r, err := streamClient(srv.URL, &log).Complete(context.Background(), testRequest())
	if err != nil || r.Message.Content != "fine" {
		t.Fatalf("%v %+v", err, r)
	}
	if len(log.calls) != 2 || !strings.Contains(log.calls[0], "broke off its streamed answer with an error: The server had an error") || !strings.Contains(log.calls[1], "engine died") {
		t.Errorf("retries: %q", log.calls)
	}
	srv = reviewtest.Serve(t, `[{"raw": "data: {\"choices\": []}\n\ndata: [DONE]\n\n", "headers": {"Content-Type": "text/event-stream"}}]`)
	r, err = streamClient(srv.URL, nil).Complete(context.Background(), testRequest())
	if !errors.Is(err, ErrBadResponse) || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("err = %v", err)
	}
	if string(r.Response) != "data: {\"choices\": []}\n\ndata: [DONE]\n\n" {
		t.Errorf("recorded %q", r.Response)
	}
}

// escapedUnits renders text as a server might put it in JSON strings, one
// unit per character: raw bytes (invalid ones too), or \u escapes of
// UTF-16 code units (so a character outside the BMP is two units, which
// a server may send in two events).
func escapedUnits(text string, ascii bool) []string {
	var units []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			units = append(units, text[i:i+1])
		case r == '"' || r == '\\':
			units = append(units, `\`+string(r))
		case r < 0x20:
			units = append(units, fmt.Sprintf(`\u%04x`, r))
		case ascii && r >= 0x10000:
			r -= 0x10000
			units = append(units, fmt.Sprintf(`\u%04x`, 0xD800+(r>>10)), fmt.Sprintf(`\u%04x`, 0xDC00+(r&0x3FF)))
		case ascii && r >= 0x80:
			units = append(units, fmt.Sprintf(`\u%04x`, r))
		default:
			// Byte by byte: a byte-level server may cut here.
			for j := 0; j < size; j++ {
				units = append(units, text[i+j:i+j+1])
			}
		}
		i += size
	}
	return units
}

// FuzzStreamText checks that any text, cut anywhere a server may cut it
// (between bytes, or between the \u escapes of a surrogate pair), and sent
// as content, reasoning and arguments over events, reassembles to what
// decoding the whole text as one JSON string gives.
func FuzzStreamText(f *testing.F) {
	f.Add("héllo 世界 😀", uint8(1), false)
	f.Add("😀😀", uint8(1), true)
	f.Add("a\xed\xa0\x80b\xe4\xb8", uint8(2), false)
	f.Add("\"\\\n\x01", uint8(3), true)
	f.Fuzz(func(t *testing.T, text string, cut uint8, ascii bool) {
		units := escapedUnits(text, ascii)
		var want string
		if err := json.Unmarshal([]byte(`"`+strings.Join(units, "")+`"`), &want); err != nil {
			t.Skip() // not a JSON string: no server sends it
		}
		n := int(cut%7) + 1
		var a assembler
		add := func(s string) {
			if err := a.add([]byte(s)); err != nil {
				t.Fatalf("%v: %q", err, s)
			}
		}
		add(`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant"}}]}`)
		add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}`)
		for i := 0; i < len(units); i += n {
			p := `"` + strings.Join(units[i:min(i+n, len(units))], "") + `"`
			add(`{"choices":[{"index":0,"delta":{"content":` + p + `,"reasoning_content":` + p + `}}]}`)
			add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + p + `}}]}}]}`)
		}
		add(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		body, err := a.body()
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecodeReply(200, body)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		if r.Message.Content != want || r.Reasoning != want || r.Message.ToolCalls[0].Arguments != want {
			t.Fatalf("reassembled %q / %q / %q, want %q", r.Message.Content, r.Reasoning, r.Message.ToolCalls[0].Arguments, want)
		}
	})
}

// FuzzAssemble feeds any event data to the assembler: it never panics,
// and whatever it reassembles is a completion DecodeReply reads.
func FuzzAssemble(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"hi","tool_calls":[{"index":1,"id":"a","function":{"name":"f","arguments":"{\"x"}}]},"finish_reason":null}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3}}`))
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"a"}},{"id":"z","function":{"name":"b"}}]}}]}`))
	f.Add([]byte(`{"error":{"message":"boom"}}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"\ud83d"}}]}` + "\n" + `{"choices":[{"index":0,"delta":{"content":"\ude00\xed"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a assembler
		for _, line := range bytes.Split(data, []byte("\n")) {
			if a.add(line) != nil {
				return
			}
		}
		body, err := a.body()
		if err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("reassembled body is not JSON: %s", body)
		}
		r, err := DecodeReply(200, body)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		if !utf8.ValidString(r.Message.Content) || !utf8.ValidString(r.Reasoning) {
			t.Fatalf("text is not UTF-8: %q %q", r.Message.Content, r.Reasoning)
		}
	})
}

// BenchmarkAssemble reassembles a 16 KiB answer (half text, half one tool
// call's arguments, with characters of one to four bytes) sent as 1,826
// events of about 8 bytes of text, as servers stream about a token an
// event.
func BenchmarkAssemble(b *testing.B) {
	text := strings.Repeat("Voilà — 世界 😀 ok. ", 16384/len("Voilà — 世界 😀 ok. ")+1)[:16384]
	for !utf8.ValidString(text) {
		text = text[:len(text)-1]
	}
	args, _ := json.Marshal(map[string]string{"summary": text[:len(text)/2]})
	var events [][]byte
	add := func(field, s string) {
		for len(s) > 0 {
			n := min(8, len(s))
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			p, _ := json.Marshal(s[:n])
			s = s[n:]
			switch field {
			case "content":
				events = append(events, []byte(`{"id":"c","choices":[{"index":0,"delta":{"content":`+string(p)+`},"finish_reason":null}]}`))
			default:
				events = append(events, []byte(`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+string(p)+`}}]},"finish_reason":null}]}`))
			}
		}
	}
	add("content", text[:len(text)/2])
	events = append(events, []byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"submit_review","arguments":""}}]}}]}`))
	add("arguments", string(args))
	events = append(events, []byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":4000,"total_tokens":4010}}`))
	size := 0
	for _, e := range events {
		size += len(e)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var a assembler
		for _, e := range events {
			if err := a.add(e); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.body(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(events)), "events")
}

// Each way a streamed attempt is cut says what happened and what to do.
func TestCutMessages(t *testing.T) {
	c := newTestClient("http://127.0.0.1:1/v1", nil)
	for _, tc := range []struct {
		err  *cutError
		want string
	}{
		{&cutError{why: errFirstByte, limit: time.Minute, cause: context.Canceled}, "model endpoint http://127.0.0.1:1/v1 sent nothing within 1m0s of a streamed request"},
		{&cutError{why: errStalled, bytes: 1234, limit: time.Minute, cause: context.Canceled}, "stalled: nothing for 1m0s in the middle of a streamed answer, after 1,234 bytes"},
		{&cutError{why: errAttemptTimeout, bytes: 1, limit: 2 * time.Minute, cause: context.Canceled}, "did not finish its streamed answer within 2m0s (1 byte received)"},
		{&cutError{why: errTruncated, bytes: 99, cause: errors.New("unexpected EOF")}, "closed the stream before the answer ended (99 bytes received, no finish_reason)"},
	} {
		err := c.transportError(tc.err)
		if !strings.Contains(err.Error(), tc.want) || !transient(tc.err) {
			t.Errorf("%v: got %q, want %q (transient: %v)", tc.err.why, err, tc.want, transient(tc.err))
		}
	}
}
