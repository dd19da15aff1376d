package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/reviewdev/review/toolmem"
)

// A step's request is most of its record, and a tool loop's requests only
// grow: each is the one before with the new messages added. Stored whole,
// a run's requests would take space in the square of its steps; so a
// request is stored as its difference from the request of an earlier step
// written by the same Writer: deltaMagic, that step's number, the lengths
// of the start and the end the two share (uvarints), then the bytes
// between. The end matters as much as the start: a request ends with the
// tool definitions, thousands of bytes that every request repeats. JSON
// never starts with a NUL byte, so the forms cannot be confused.
const deltaMagic = "\x00rd2"

// deltaMagic1 is the form of earlier versions, which kept only the shared
// start; it is still read.
const deltaMagic1 = "\x00rd1"

// minShared is the fewest shared bytes worth a delta.
const minShared = 512

// reqChain is the requests as written: cur is the newest, base the newest
// of an earlier step, which cur is stored against.
type reqChain struct {
	cur, base reqBody
}

// reqBody is one request as written. chain counts the bytes of the deltas
// written since the last request written whole: once they would outweigh
// a whole request, one is written whole again.
type reqBody struct {
	n      int
	body   []byte
	chain  int
	stored []byte // the form body was stored in
}

// delta is the form st.Request is stored in: a delta against the newest
// request stored before this step, unless the deltas since the last
// request stored whole already outweigh a whole one, which bounds what
// reading a request back costs. next is the chain once it is written.
func delta(c reqChain, st toolmem.Step) (stored []byte, next reqChain) {
	if c.cur.n == st.N && c.cur.body != nil && bytes.Equal(c.cur.body, st.Request) {
		return c.cur.stored, c // written again with its answer
	}
	next = reqChain{cur: reqBody{n: st.N, body: st.Request, stored: st.Request}, base: c.base}
	if c.cur.n < st.N && c.cur.body != nil {
		next.base = c.cur
	}
	b := next.base
	if len(st.Request) == 0 || b.body == nil || b.n >= st.N {
		return st.Request, next
	}
	pre := commonPrefix(b.body, st.Request)
	suf := commonSuffix(b.body[pre:], st.Request[pre:])
	if pre+suf < minShared {
		return st.Request, next
	}
	out := append([]byte(deltaMagic), binary.AppendUvarint(nil, uint64(b.n))...)
	out = binary.AppendUvarint(out, uint64(pre))
	out = binary.AppendUvarint(out, uint64(suf))
	out = append(out, st.Request[pre:len(st.Request)-suf]...)
	if b.chain+len(out) >= len(st.Request) {
		return st.Request, next
	}
	next.cur.chain, next.cur.stored = b.chain+len(out), out
	return out, next
}

// undelta returns the request stored as data, given the requests of the
// earlier steps of the run read so far.
func undelta(data []byte, earlier map[int][]byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(data, []byte(deltaMagic))
	v1 := false
	if !ok {
		if rest, ok = bytes.CutPrefix(data, []byte(deltaMagic1)); !ok {
			return data, nil
		}
		v1 = true
	}
	damaged := errors.New("its delta header is damaged")
	base, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, damaged
	}
	rest = rest[n:]
	pre, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, damaged
	}
	rest = rest[n:]
	var suf uint64
	if !v1 {
		if suf, n = binary.Uvarint(rest); n <= 0 {
			return nil, damaged
		}
		rest = rest[n:]
	}
	prev, ok := earlier[int(base)]
	if !ok || uint64(len(prev)) < pre || uint64(len(prev))-pre < suf {
		return nil, fmt.Errorf("it is stored against step %d, which is missing or damaged", base)
	}
	out := make([]byte, 0, int(pre)+len(rest)+int(suf))
	out = append(append(out, prev[:pre]...), rest...)
	return append(out, prev[uint64(len(prev))-suf:]...), nil
}

// Steps returns the steps of run in order, each request whole. A step
// whose record, bodies or delta are damaged is left out and reported to
// the store's warnings.
func Steps(st *toolmem.Store, run string) ([]toolmem.Step, error) {
	steps, err := st.Steps(run)
	if err != nil {
		return nil, err
	}
	out := steps[:0]
	requests := map[int][]byte{} // whole, for the deltas of later steps
	for _, s := range steps {
		req, err := undelta(s.Request, requests)
		if err != nil {
			st.Skip(fmt.Sprintf("the request of step %d of run %s", s.N, run), err)
			continue
		}
		s.Request = req
		requests[s.N] = req
		out = append(out, s)
	}
	return out, nil
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
