package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/reviewtest"
)

// huge is a step of a server script whose answer holds n bytes of content,
// or of a tool call's arguments when inCall.
func huge(n int, inCall bool) string {
	text := strings.Repeat("all work and no play ", n/21+1)[:n]
	if inCall {
		args, _ := json.Marshal(map[string]string{"path": text})
		b, _ := json.Marshal(string(args))
		return fmt.Sprintf(`{"tool_calls": [{"name": "read_file", "raw_arguments": %s}], "chunk_bytes": 4096}`, b)
	}
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"content": %s, "chunk_bytes": 4096}`, b)
}

// TestAnswerCap: an answer over the cap (32 bytes per token of max_tokens,
// in its content or a tool call's arguments) is asked for once more; a
// second one over it is an AnswerSizeError, which matches ErrBadResponse,
// and the record keeps no more of it than the cap. Streamed or whole.
func TestAnswerCap(t *testing.T) {
	req := testRequest() // max_tokens 1000: the cap is MinAnswerLimit, 64 KiB
	limit := AnswerLimit(req.MaxTokens)
	if limit != MinAnswerLimit || AnswerLimit(8192) != 256<<10 || AnswerLimit(0) != NoReserveAnswerLimit {
		t.Fatalf("limits %d, %d, %d", limit, AnswerLimit(8192), AnswerLimit(0))
	}
	for _, stream := range []bool{false, true} {
		for _, inCall := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v,call=%v", stream, inCall), func(t *testing.T) {
				edit := func(c *ClientConfig) { c.Stream = stream }
				// Over, then fine: the second answer is taken.
				srv := reviewtest.Serve(t, "["+huge(limit+1, inCall)+`, {"content": "fine"}]`)
				var log retryLog
				r, err := newTestClient(srv.URL, &log, edit).Complete(context.Background(), req)
				if err != nil || r.Message.Content != "fine" || r.Attempts != 2 {
					t.Fatalf("%v, %+v", err, r)
				}
				if len(log.calls) != 1 || !strings.Contains(log.calls[0], "over the limit of 64 KiB") {
					t.Errorf("retries: %q", log.calls)
				}

				// Over twice: refused.
				srv = reviewtest.Serve(t, "["+huge(2<<20, inCall)+","+huge(limit+1, inCall)+"]")
				r, err = newTestClient(srv.URL, nil, edit).Complete(context.Background(), req)
				var big *AnswerSizeError
				if !errors.As(err, &big) || !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want an AnswerSizeError", err)
				}
				if big.Answers != 2 || big.Attempts != 2 || r.Attempts != 2 || len(srv.Requests()) != 2 {
					t.Errorf("answers %d, attempts %d/%d, requests %d", big.Answers, big.Attempts, r.Attempts, len(srv.Requests()))
				}
				want := fmt.Sprintf("sent an answer of %s, over the limit of 64 KiB (32 bytes for each of the 1000 tokens asked for), in each of 2 answers", byteSize(big.Bytes))
				if stream {
					want = "sent an answer over the limit of 64 KiB (32 bytes for each of the 1000 tokens asked for; read no further), in each of 2 answers"
				}
				if !strings.Contains(err.Error(), want) || big.Bytes <= limit {
					t.Errorf("error %q, want %q", err, want)
				}
				if len(r.Response) > limit || len(r.Request) == 0 {
					t.Errorf("recorded %d bytes of the answer, over the limit of %d", len(r.Response), limit)
				}
			})
		}
	}
}

// TestReasoningCap: reasoning may run longer than the answer cap (a
// reasoner thinks for up to 32K tokens whatever max_tokens says), up to
// ReasoningLimit.
func TestReasoningCap(t *testing.T) {
	think := func(n int) string {
		b, _ := json.Marshal(strings.Repeat("hmm ", n/4))
		return fmt.Sprintf(`{"reasoning_content": %s, "content": "ok", "chunk_bytes": 4096}`, b)
	}
	for _, stream := range []bool{false, true} {
		edit := func(c *ClientConfig) { c.Stream = stream }
		srv := reviewtest.Serve(t, "["+think(200<<10)+"]")
		r, err := newTestClient(srv.URL, nil, edit).Complete(context.Background(), testRequest())
		if err != nil || r.Message.Content != "ok" || len(r.Reasoning) < 200<<10 {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		srv = reviewtest.Serve(t, "["+think(ReasoningLimit+8)+","+think(ReasoningLimit+8)+"]")
		_, err = newTestClient(srv.URL, nil, edit).Complete(context.Background(), testRequest())
		var big *AnswerSizeError
		if !errors.As(err, &big) || !big.Reasoning || !strings.Contains(err.Error(), "sent reasoning") {
			t.Fatalf("stream=%v: err = %v, want reasoning over the limit", stream, err)
		}
	}
}
