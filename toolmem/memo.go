package toolmem

import (
	"crypto/sha256"
	"encoding/binary"
)

// A run is recorded as it goes: its record after every step, each step when
// its request is sent and again when the response arrives or its tool
// outputs are stored, its conversation after every step. Written whole each
// time, these records made a store grow with the square of a run's steps.
// So the store writes only what changed: a step's bodies once, each request
// as its difference from the one before (see deltaRequest), the settings of
// a run when they change (see PutRun), a conversation's new and changed
// messages (see PutConversation). What a step adds to the store is then
// about what it added to the run.
//
// memo is what this process wrote, which "changed" is measured against. A
// record this process did not write (a run continued by a later process)
// is written whole the first time.
type memo struct {
	// blobs holds the hash of each blob written, by key.
	blobs map[string][sha256.Size]byte
	// reqs holds the requests last written of each run.
	reqs map[string]*reqChain
}

// reqChain is the requests of a run as written: cur is the newest, base
// the newest of an earlier step, which cur is stored against.
type reqChain struct {
	cur, base reqBody
}

// reqBody is one request as written. chain counts the bytes of the deltas
// written since the last request written whole: once they would outweigh
// a whole request, one is written whole again.
type reqBody struct {
	n     int
	body  []byte
	chain int
}

func (m *memo) init() {
	if m.blobs == nil {
		m.blobs = map[string][sha256.Size]byte{}
		m.reqs = map[string]*reqChain{}
	}
}

// same reports whether this process wrote exactly data as the blob at key.
func (m *memo) same(key, data []byte) bool {
	h, ok := m.blobs[string(key)]
	return ok && h == sha256.Sum256(data)
}

// pending collects what a transaction wrote, for the memo once it commits.
type pending struct {
	blobs map[string][sha256.Size]byte
	apply []func()
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
	}
	for _, f := range p.apply {
		f()
	}
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
