package seam

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/reviewdev/review/internal/backoff"
)

// Defaults of a host client's retries, which a zero field of its options
// means.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
)

// RetryAfterLimit is the longest wait a host may ask for that is waited
// out. A longer one ends the request with its error, which says when to
// run again, rather than stalling the job.
const RetryAfterLimit = time.Minute

// Retry bounds the attempts of one request to a host and the waits
// between them; every host's client makes its requests again through it.
type Retry struct {
	backoff.Policy
}

// NewRetry is the retry of a host's options: attempts (1 makes no retry)
// and the ceilings of the waits when the host does not say how long to
// wait; zero or less means the defaults.
func NewRetry(attempts int, base, max time.Duration) Retry {
	return Retry{backoff.Policy{Attempts: attempts, Base: base, Max: max}.
		Or(backoff.Policy{Attempts: DefaultMaxAttempts, Base: DefaultBaseDelay, Max: DefaultMaxDelay})}
}

// Again decides what follows failed attempt n (from 1), which the host's
// client judged: ok says the failure may pass, and wait is how long the
// host asked to wait first when hinted. It waits and reports true when
// the request is worth making again; false when the client reports the
// failure now: it will not pass, the attempts are spent, the host asks
// for a wait over RetryAfterLimit, or the wait would pass ctx's deadline
// (the real failure says more than a bare "deadline exceeded"). err is
// ctx's when it ended first.
func (r Retry) Again(ctx context.Context, n int, wait time.Duration, hinted, ok bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	switch {
	case hinted && wait > RetryAfterLimit:
		ok = false
	case !hinted:
		wait = r.Delay(n)
	}
	if backoff.Outlasts(ctx, wait) || !ok || n >= r.Attempts {
		return false, nil
	}
	if err := backoff.Sleep(ctx, wait); err != nil {
		return false, err
	}
	return true, nil
}

// TransientStatus reports whether a host's answer with this status may
// be different when asked again: a timeout, a rate limit, the server's
// errors.
func TransientStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Network reports whether err, a request that got no whole answer, failed
// in the network in a way that may pass: a reset, a timeout, an answer cut
// short. A host that does not exist, a certificate that does not hold, a
// server that does not speak TLS, or anything that is not the network (an
// answer that cannot be read) will not.
func Network(err error) bool {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
	)
	if !errors.As(err, &netErr) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.As(err, &certErr) || errors.As(err, &recErr) {
		return false
	}
	return true
}
