package backoff

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Policy bounds the attempts of one request and the waits between them.
type Policy struct {
	// Attempts is the most requests made, the first included; 1 makes
	// no retry.
	Attempts int
	// Base is the ceiling of the wait after the first failed attempt;
	// each later failure doubles it, up to Max.
	Base, Max time.Duration
}

// Or fills the fields of p that are zero or negative from def.
func (p Policy) Or(def Policy) Policy {
	if p.Attempts <= 0 {
		p.Attempts = def.Attempts
	}
	if p.Base <= 0 {
		p.Base = def.Base
	}
	if p.Max <= 0 {
		p.Max = def.Max
	}
	return p
}

// Delay is the wait after failed attempt n (from 1) when the server did
// not say how long to wait: full jitter, a random time from zero up to
// Base·2^(n-1), at most Max. The randomness keeps clients that failed
// together from retrying together; the full range spreads them most
// (AWS's "Exponential Backoff and Jitter").
func (p Policy) Delay(n int) time.Duration {
	ceil := p.Base
	for i := 1; i < n && ceil < p.Max; i++ {
		if ceil > p.Max/2 {
			// Doubling would pass Max, or overflow.
			ceil = p.Max
			break
		}
		ceil *= 2
	}
	ceil = min(ceil, p.Max)
	if ceil <= 0 {
		return 0
	}
	// In unsigned arithmetic ceil+1 cannot overflow.
	return time.Duration(rand.Uint64N(uint64(ceil) + 1))
}

// Forms are the ways of saying how long to wait that a client takes.
type Forms uint8

const (
	// Seconds is RFC 9110's delay-seconds: Retry-After as a whole number
	// of seconds. Every client takes it.
	Seconds Forms = 1 << iota
	// Fractions takes seconds with a fraction or an exponent ("1.5"),
	// which some servers send.
	Fractions
	// Dates takes Retry-After as an HTTP date.
	Dates
	// Millis takes OpenAI's Retry-After-Ms header, milliseconds, which
	// wins over Retry-After.
	Millis
)

// maxHint caps a wait read in whole seconds, so that no value overflows a
// Duration: about twelve days, far past any wait a client waits out.
const maxHint = (1 << 20) * time.Second

// maxFraction bounds a number that is not whole seconds (in seconds, and
// the same in milliseconds for Retry-After-Ms): past it, or negative, or
// not a number, it says nothing a client could act on.
const maxFraction = 1e9

// RetryAfter reads how long the server asked the client to wait, in the
// forms given, and reports whether it said. A date in the past, or zero,
// means now. A whole number of seconds past about twelve days reads as
// twelve days; any other value that cannot be a wait (negative, past the
// range of an int64, a fraction over 10^9 seconds) is no hint.
func RetryAfter(h http.Header, now time.Time, forms Forms) (time.Duration, bool) {
	if forms&Millis != 0 {
		if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms <= maxFraction*1000 {
				return time.Duration(ms * float64(time.Millisecond)), true
			}
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, int64(maxHint/time.Second))) * time.Second, true
	}
	if forms&Fractions != 0 {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if !(s >= 0 && s <= maxFraction) {
				return 0, false
			}
			return time.Duration(s * float64(time.Second)), true
		}
	}
	if forms&Dates != 0 {
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// Sleep waits for d, or until ctx is done, and then returns ctx's error.
// A wait of zero or less only checks ctx.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Outlasts reports whether waiting d would pass ctx's deadline: a client
// then reports the failure it has rather than a bare "deadline exceeded".
func Outlasts(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < d
}
