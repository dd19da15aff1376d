package llm

import (
	"context"
	"sync"
	"time"
)

// limiter is the one rate limiter of a client, shared by every request
// the run makes side by side: it bounds the attempts in flight, and when
// the server pushes back (429, 503, Retry-After) it slows every request,
// not just the one that was told. Concurrency halves at each push-back and
// grows again by one for each run of answers without one, up to its
// ceiling, as TCP's congestion window does; a Retry-After holds every
// attempt until it has passed.
type limiter struct {
	mu      sync.Mutex
	ceiling int // the most attempts in flight, as configured
	limit   int // the attempts in flight allowed now: 1..ceiling
	active  int
	good    int       // answers since the limit last changed
	until   time.Time // no attempt starts before this
	wake    chan struct{}
	now     func() time.Time
	// lowest is the smallest limit the run came down to, for the record.
	lowest int
}

func newLimiter(ceiling int) *limiter {
	ceiling = max(ceiling, 1)
	return &limiter{ceiling: ceiling, limit: ceiling, lowest: ceiling, wake: make(chan struct{}), now: time.Now}
}

// acquire waits for a slot and for any pause the server asked for.
func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		wait := l.until.Sub(l.now())
		if wait <= 0 && l.active < l.limit {
			l.active++
			l.mu.Unlock()
			return nil
		}
		wake := l.wake
		l.mu.Unlock()
		var (
			t     *time.Timer
			timer <-chan time.Time
		)
		if wait > 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		var err error
		select {
		case <-ctx.Done():
			err = context.Cause(ctx)
		case <-wake:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if err != nil {
			return err
		}
	}
}

// release ends an attempt. pushedBack says the server refused it for load
// (429, 503), pause how long it asked every request to wait (0: none).
func (l *limiter) release(pushedBack bool, pause time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	switch {
	case pushedBack:
		l.limit = max(1, l.limit/2)
		l.lowest = min(l.lowest, l.limit)
		l.good = 0
		if pause > 0 {
			if t := l.now().Add(pause); t.After(l.until) {
				l.until = t
			}
		}
	default:
		l.good++
		if l.limit < l.ceiling && l.good >= l.limit {
			l.limit++
			l.good = 0
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// Limits is what a client's shared limiter did in a run.
type Limits struct {
	// Ceiling is the most requests allowed in flight; Lowest the fewest
	// the server's push-back brought it down to.
	Ceiling, Lowest int
}

// Limits says what the client's limiter did so far.
func (c *Client) Limits() Limits {
	c.lim.mu.Lock()
	defer c.lim.mu.Unlock()
	return Limits{Ceiling: c.lim.ceiling, Lowest: c.lim.lowest}
}

type labelKey struct{}

// WithLabel returns a context under which the client's OnRetry is told of
// a failed attempt with label before its error ("unit 3: ..."), so that a
// retry among requests side by side says whose it was.
func WithLabel(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, labelKey{}, label)
}

// labelled is err as OnRetry is told of it under ctx.
func labelled(ctx context.Context, err error) error {
	if l, _ := ctx.Value(labelKey{}).(string); l != "" {
		return &labelledError{label: l, err: err}
	}
	return err
}

// labelledError is an error with the label of the request that met it.
type labelledError struct {
	label string
	err   error
}

func (e *labelledError) Error() string { return e.label + ": " + e.err.Error() }
func (e *labelledError) Unwrap() error { return e.err }
