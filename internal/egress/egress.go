// Package egress counts what a run sends out: every destination it
// contacts (host and path), with its requests and the bytes of their
// bodies each way, and the redactions that what it sent carries (by rule,
// counted from the placeholders in the bodies, never the values). A Meter
// wraps the transports of the run's HTTP clients (the model's, the
// tokenizer's and window probes', the host's API); the run records what it
// counted as it goes, so `review replay --egress` can say where the run's
// data went.
//
// The package imports nothing of this module but redact's placeholder
// form, so every client can use it.
package egress

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/reviewdev/review/internal/redact"
)

// Destination is a place requests went: a host and a path, without the
// query (which may hold a key).
type Destination struct {
	Host string `json:"host"`
	Path string `json:"path"`
	// Requests counts the requests sent there, each attempt and each hop
	// of a redirect its own; Failed those that got no answer (refused,
	// timed out or cut off before the response's headers).
	Requests int `json:"requests"`
	Failed   int `json:"failed,omitempty"`
	// Sent and Received are the bytes of the requests' and responses'
	// bodies (as read).
	Sent     int64 `json:"bytes_sent"`
	Received int64 `json:"bytes_received"`
}

// Redaction is what one redaction rule replaced in what was sent.
type Redaction struct {
	Rule string `json:"rule"`
	// Secrets counts the distinct secrets the rule replaced that were
	// sent (by their placeholders); Requests the requests that carried
	// one at least.
	Secrets  int `json:"secrets"`
	Requests int `json:"requests"`
	// IDs are the four hex digits of the placeholders first sent in the
	// span of a Record, so that records summed count a secret once. They
	// say next to nothing of the secret (see package redact) and are
	// never shown.
	IDs []string `json:"ids,omitempty"`
}

// Record is what a run sent in a span of its time: destinations in the
// order first contacted, redactions by rule.
type Record struct {
	Destinations []Destination `json:"destinations"`
	Redactions   []Redaction   `json:"redactions,omitempty"`
}

// Empty reports whether r counts nothing.
func (r Record) Empty() bool { return len(r.Destinations) == 0 && len(r.Redactions) == 0 }

// Add adds o's counts to r: destinations by host and path, redactions by
// rule, a secret counted once however many records sent it.
func (r *Record) Add(o Record) {
	for _, d := range o.Destinations {
		i := slices.IndexFunc(r.Destinations, func(e Destination) bool { return e.Host == d.Host && e.Path == d.Path })
		if i < 0 {
			r.Destinations = append(r.Destinations, Destination{Host: d.Host, Path: d.Path})
			i = len(r.Destinations) - 1
		}
		e := &r.Destinations[i]
		e.Requests += d.Requests
		e.Failed += d.Failed
		e.Sent += d.Sent
		e.Received += d.Received
	}
	for _, x := range o.Redactions {
		i := slices.IndexFunc(r.Redactions, func(e Redaction) bool { return e.Rule == x.Rule })
		if i < 0 {
			r.Redactions = append(r.Redactions, Redaction{Rule: x.Rule})
			i = len(r.Redactions) - 1
		}
		e := &r.Redactions[i]
		e.Requests += x.Requests
		for _, id := range x.IDs {
			if !slices.Contains(e.IDs, id) {
				e.IDs = append(e.IDs, id)
			}
		}
		e.Secrets = max(e.Secrets, len(e.IDs))
	}
	slices.SortFunc(r.Redactions, func(a, b Redaction) int { return strings.Compare(a.Rule, b.Rule) })
}

// Hosts are the distinct hosts of r's destinations, in order.
func (r Record) Hosts() []string {
	var hosts []string
	for _, d := range r.Destinations {
		if !slices.Contains(hosts, d.Host) {
			hosts = append(hosts, d.Host)
		}
	}
	return hosts
}

// Meter counts what its clients send. A nil Meter counts nothing. It is
// safe for concurrent use.
type Meter struct {
	mu    sync.Mutex
	dests []Destination         // since the last Take, in order
	red   map[string]*Redaction // since the last Take, by rule
	seen  map[string]bool       // rule#id of every placeholder sent
	index map[[2]string]int     // host and path → index in dests
}

// New returns a meter that has counted nothing.
func New() *Meter { return &Meter{} }

// Client returns a copy of hc (nil: a client of net/http's defaults)
// whose requests m counts. A nil m returns hc as it is.
func (m *Meter) Client(hc *http.Client) *http.Client {
	if m == nil {
		return hc
	}
	c := http.Client{}
	if hc != nil {
		c = *hc
	}
	c.Transport = m.Transport(c.Transport)
	return &c
}

// Transport returns a RoundTripper that counts each request it sends
// through base (nil: http.DefaultTransport). A nil m returns base.
func (m *Meter) Transport(base http.RoundTripper) http.RoundTripper {
	if m == nil {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	if t, ok := base.(*transport); ok && t.m == m {
		return t // counted already
	}
	return &transport{m: m, base: base}
}

// Take returns what m counted since the last Take, and starts again.
func (m *Meter) Take() Record {
	if m == nil {
		return Record{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := Record{Destinations: m.dests}
	for _, x := range m.red {
		r.Redactions = append(r.Redactions, *x)
	}
	slices.SortFunc(r.Redactions, func(a, b Redaction) int { return strings.Compare(a.Rule, b.Rule) })
	m.dests, m.red, m.index = nil, nil, nil
	return r
}

// dest returns the destination of host and path in the current span;
// m.mu must be held.
func (m *Meter) dest(host, path string) *Destination {
	k := [2]string{host, path}
	i, ok := m.index[k]
	if !ok {
		if m.index == nil {
			m.index = map[[2]string]int{}
		}
		m.dests = append(m.dests, Destination{Host: host, Path: path})
		i = len(m.dests) - 1
		m.index[k] = i
	}
	return &m.dests[i]
}

// sent counts a request to host and path with body, and the placeholders
// body carries.
func (m *Meter) sent(host, path string, body []byte) {
	rules := map[string][]string{}
	redact.EachPlaceholder(body, func(rule, id string) { rules[rule] = append(rules[rule], id) })
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dest(host, path)
	d.Requests++
	d.Sent += int64(len(body))
	for rule, ids := range rules {
		x := m.red[rule]
		if x == nil {
			if m.red == nil {
				m.red = map[string]*Redaction{}
			}
			x = &Redaction{Rule: rule}
			m.red[rule] = x
		}
		x.Requests++
		for _, id := range ids {
			if m.seen == nil {
				m.seen = map[string]bool{}
			}
			if k := rule + "#" + id; !m.seen[k] {
				m.seen[k] = true
				x.IDs = append(x.IDs, id)
				x.Secrets++
			}
		}
	}
}

func (m *Meter) failed(host, path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dest(host, path).Failed++
}

func (m *Meter) received(host, path string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dest(host, path).Received += int64(n)
}

type transport struct {
	m    *Meter
	base http.RoundTripper
}

// RoundTrip counts req and the body of its answer as it is read. It reads
// the request's body to count it: from GetBody when it has one, else
// from a clone's copy, as a RoundTripper must not change its request.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	host, path := strings.ToLower(req.URL.Host), req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	var body []byte
	switch {
	case req.Body == nil || req.Body == http.NoBody:
	case req.GetBody != nil:
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(rc)
			rc.Close()
		}
	default:
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	t.m.sent(host, path, body)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.m.failed(host, path)
		return resp, err
	}
	if resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &counted{ReadCloser: resp.Body, m: t.m, host: host, path: path}
	}
	return resp, nil
}

// counted counts the bytes read of a response's body.
type counted struct {
	io.ReadCloser
	m          *Meter
	host, path string
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if n > 0 {
		c.m.received(c.host, c.path, n)
	}
	return n, err
}
