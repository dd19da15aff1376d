package seam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	p := NewRetry(4, 100*time.Millisecond, time.Second)
	for n, ceil := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 60: time.Second, 1 << 20: time.Second,
	} {
		for range 200 {
			if w := p.Delay(n); w < 0 || w > ceil {
				t.Fatalf("backoff(%d) = %s, want within [0, %s]", n, w, ceil)
			}
		}
	}
	if p := NewRetry(0, 0, 0); p.Attempts != DefaultMaxAttempts || p.Base != DefaultBaseDelay || p.Max != DefaultMaxDelay {
		t.Errorf("defaults: %+v", p)
	}
}

// TestAgain: a failure that may pass is made again until the attempts are
// spent; a host's wait is waited out up to RetryAfterLimit; a wait that
// would pass the deadline, or one that will not pass, ends at once.
func TestAgain(t *testing.T) {
	r := NewRetry(3, time.Millisecond, time.Millisecond)
	ctx := context.Background()
	tests := []struct {
		name       string
		n          int
		wait       time.Duration
		hinted, ok bool
		want       bool
	}{
		{"transient", 1, 0, false, true, true},
		{"spent", 3, 0, false, true, false},
		{"lasting", 1, 0, false, false, false},
		{"hinted", 1, time.Millisecond, true, true, true},
		{"hinted too long", 1, RetryAfterLimit + time.Second, true, true, false},
	}
	for _, tt := range tests {
		again, err := r.Again(ctx, tt.n, tt.wait, tt.hinted, tt.ok)
		if again != tt.want || err != nil {
			t.Errorf("%s: Again = %v, %v; want %v", tt.name, again, err, tt.want)
		}
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if again, err := r.Again(short, 1, 30*time.Second, true, true); again || err != nil {
		t.Errorf("a wait past the deadline: %v, %v", again, err)
	}
	done, stop := context.WithCancel(ctx)
	stop()
	if _, err := r.Again(done, 1, 0, false, true); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

func TestNetwork(t *testing.T) {
	reset := &url.Error{Op: "Post", URL: "https://h", Err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{reset, true},
		{fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{&url.Error{Op: "Get", URL: "https://nowhere", Err: &net.DNSError{Err: "no such host", Name: "nowhere", IsNotFound: true}}, false},
		{errors.New("invalid character '<' looking for beginning of value"), false},
	} {
		if got := Network(tt.err); got != tt.want {
			t.Errorf("Network(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
