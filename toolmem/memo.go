package toolmem

import (
	"crypto/sha256"
)

// A run is recorded as it goes: its record after every step, each step when
// its request is sent and again when the response arrives or its tool
// outputs are stored, its conversation after every step. Written whole each
// time, these records made a store grow with the square of a run's steps.
// So the store writes only what changed: a step's bodies once (its request
// is stored as its difference from the one before by review/record), the
// settings of a run when they change (see PutRun), a conversation's new and
// changed messages (see PutConversation). What a step adds to the store is then
// about what it added to the run.
//
// memo is what this process wrote, which "changed" is measured against. A
// record this process did not write (a run continued by a later process)
// is written whole the first time.
//
// A run's settings, passed again as the very slice last found the same
// (its first byte and length), are known without hashing them again: they
// hold every unit, and hashing them at every step of every unit cost time
// that grew with the square of the units. Callers replace the settings'
// bytes to change them; they never change them in place.
type memo struct {
	// blobs holds the hash of each blob written, by key, and seen the
	// slice it was written from.
	blobs map[string][sha256.Size]byte
	seen  map[string]slice
}

// slice names a byte slice by its first byte and length.
type slice struct {
	first *byte
	n     int
}

func sliceOf(b []byte) slice {
	if len(b) == 0 {
		return slice{}
	}
	return slice{&b[0], len(b)}
}

func (m *memo) init() {
	if m.blobs == nil {
		m.blobs = map[string][sha256.Size]byte{}
		m.seen = map[string]slice{}
	}
}

// same reports whether this process wrote exactly data as the blob at key.
func (m *memo) same(key, data []byte) bool {
	h, ok := m.blobs[string(key)]
	if !ok {
		return false
	}
	if len(data) > 0 && m.seen[string(key)] == sliceOf(data) {
		return true
	}
	return h == sha256.Sum256(data)
}

// remember notes that data, as a slice, is the blob at key, so that the
// same slice passed again is not hashed (for small records written at
// every step: the slice is kept alive).
func (m *memo) remember(key, data []byte) {
	m.seen[string(key)] = sliceOf(data)
}

// pending collects what a transaction wrote, for the memo once it commits.
type pending struct {
	blobs map[string][sha256.Size]byte
}

func (p *pending) wrote(key, data []byte) {
	if p.blobs == nil {
		p.blobs = map[string][sha256.Size]byte{}
	}
	p.blobs[string(key)] = sha256.Sum256(data)
}

// commit records what a committed transaction wrote.
func (m *memo) commit(p *pending) {
	for k, h := range p.blobs {
		m.blobs[k] = h
		delete(m.seen, k)
	}
}
