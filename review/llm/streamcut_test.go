package llm

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"
)

// TestStreamCutReasons turns a read failure into the reason the attempt
// was cut, for each limit that may cancel it.
func TestStreamCutReasons(t *testing.T) {
	read := io.ErrUnexpectedEOF
	cases := []struct {
		name      string
		callerOff bool
		cause     error
		firstByte time.Duration
		received  int64
		want      error // errors.Is of the result
		cut       bool  // a *cutError, with limit
		limit     time.Duration
	}{
		{name: "caller cancelled", callerOff: true, cause: errFirstByte, firstByte: time.Second, want: read},
		{name: "first byte is the whole timeout", cause: errFirstByte, firstByte: time.Minute, want: errAttemptTimeout},
		{name: "no first byte", cause: errFirstByte, firstByte: time.Second, want: read, cut: true, limit: time.Second},
		{name: "stalled", cause: errStalled, firstByte: time.Second, received: 120, want: read, cut: true, limit: time.Second},
		{name: "timeout before any byte", cause: errAttemptTimeout, firstByte: time.Second, want: errAttemptTimeout},
		{name: "timeout after some bytes", cause: errAttemptTimeout, firstByte: time.Second, received: 4096, want: read, cut: true, limit: time.Minute},
		{name: "no limit ran out", cause: nil, firstByte: time.Second, want: read},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caller, stop := context.WithCancel(context.Background())
			defer stop()
			if c.callerOff {
				stop()
			}
			attempt, cancel := context.WithCancelCause(caller)
			defer cancel(nil)
			if c.cause != nil {
				cancel(c.cause)
			}
			var n atomic.Int64
			n.Store(c.received)
			got := streamCut{caller: caller, attempt: attempt, firstByte: c.firstByte, timeout: time.Minute, received: &n}.err(read)
			if !errors.Is(got, c.want) {
				t.Fatalf("err = %v, want one wrapping %v", got, c.want)
			}
			var ce *cutError
			if errors.As(got, &ce) != c.cut {
				t.Fatalf("err = %v (%T): cut %v, want %v", got, got, !c.cut, c.cut)
			}
			if c.cut && (ce.limit != c.limit || ce.bytes != c.received || !errors.Is(ce.why, c.cause)) {
				t.Fatalf("cut %+v, want limit %v, %d bytes, why %v", ce, c.limit, c.received, c.cause)
			}
		})
	}
}
