package toolmem

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Run statuses.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// MaxRunIDLen bounds run IDs.
const MaxRunIDLen = 64

// Run is the record of one review run. Settings and Usage are JSON the
// caller defines; they are stored byte for byte.
type Run struct {
	ID       string          `json:"id"`
	Repo     string          `json:"repo"`
	Base     string          `json:"base"`
	Head     string          `json:"head"`
	BaseSHA  string          `json:"base_sha"`
	HeadSHA  string          `json:"head_sha"`
	Model    string          `json:"model"`
	Status   string          `json:"status"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Usage    json.RawMessage `json:"usage,omitempty"`
	Error    string          `json:"error,omitempty"`
	Started  time.Time       `json:"started"`
	Ended    time.Time       `json:"ended"`
}

// runRecord is how a Run is stored: byte slices rather than RawMessage,
// which encoding/json would compact and require to be valid.
type runRecord struct {
	ID, Repo, Base, Head, BaseSHA, HeadSHA, Model, Status string
	Settings, Usage                                       []byte
	Error                                                 string
	Started, Ended                                        time.Time
}

// NewRunID returns a new run ID: the UTC time of now to the second and six
// random base32 characters, e.g. "20261122-153012-k3f7qa". IDs sort by
// time, and two runs in the same second collide once in a billion.
func NewRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102-150405") + "-" + refEncoding.EncodeToString(b[:])[:6]
}

// checkRunID rejects IDs that could not be keys: a slash would let one
// run's keys pass for another's.
func checkRunID(id string) error {
	if id == "" {
		return inputErrorf("run ID is empty")
	}
	if len(id) > MaxRunIDLen {
		return inputErrorf("run ID %.20q... is longer than %d characters", id, MaxRunIDLen)
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return inputErrorf("run ID %q may hold only letters, digits, '-', '_' and '.'", id)
		}
	}
	return nil
}

// PutRun writes r, replacing any earlier record of the same run, and syncs
// it to disk.
func (s *Store) PutRun(r Run) error {
	if err := checkRunID(r.ID); err != nil {
		return err
	}
	switch r.Status {
	case StatusRunning, StatusComplete, StatusFailed, StatusInterrupted:
	default:
		return inputErrorf("run %s: unknown status %q (want running, complete, failed or interrupted)", r.ID, r.Status)
	}
	data, err := json.Marshal(runRecord{
		ID: r.ID, Repo: r.Repo, Base: r.Base, Head: r.Head, BaseSHA: r.BaseSHA, HeadSHA: r.HeadSHA,
		Model: r.Model, Status: r.Status, Settings: r.Settings, Usage: r.Usage, Error: r.Error,
		Started: r.Started, Ended: r.Ended,
	})
	if err != nil {
		return fmt.Errorf("encoding run %s: %w", r.ID, err)
	}
	if err := s.update(func(txn *badger.Txn) error {
		return txn.Set(runKey(r.ID), data)
	}); err != nil {
		return s.errTxn("storing run "+r.ID, err)
	}
	return s.sync()
}

// Run returns the run with the given ID, or with the only ID that starts
// with it. An ambiguous prefix is an error that lists some of the runs it
// matches.
func (s *Store) Run(id string) (Run, error) {
	id = strings.TrimSpace(id)
	if checkRunID(id) != nil {
		return Run{}, runNotFound(id)
	}
	var (
		r       Run
		matches []string
	)
	err := s.view(func(txn *badger.Txn) error {
		item, err := txn.Get(runKey(id))
		if err == nil {
			if err := readValue(item, func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				return s.damagedRecord("run "+id, err)
			}
			return nil
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		prefix := key(nsRun, id)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			item := it.Item()
			matches = append(matches, runIDOf(item.Key()))
			if len(matches) == 1 {
				if err := readValue(item, func(v []byte) error { return decodeRun(v, &r) }); err != nil {
					return s.damagedRecord("run "+matches[0], err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return Run{}, s.errTxn("reading run "+id, err)
	}
	switch {
	case r.ID != "" && len(matches) <= 1:
		return r, nil
	case len(matches) == 0:
		return Run{}, runNotFound(id)
	}
	const show = 3
	list := strings.Join(matches[:min(show, len(matches))], ", ")
	if len(matches) > show {
		list += fmt.Sprintf(" and %d more", len(matches)-show)
	}
	return Run{}, inputErrorf("run ID prefix %q is ambiguous: it matches %s; give more of the ID", id, list)
}

func runIDOf(k []byte) string {
	return strings.TrimSuffix(string(k[len(nsRun):]), "/")
}

func decodeRun(v []byte, r *Run) error {
	var rec runRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return err
	}
	*r = Run{
		ID: rec.ID, Repo: rec.Repo, Base: rec.Base, Head: rec.Head, BaseSHA: rec.BaseSHA, HeadSHA: rec.HeadSHA,
		Model: rec.Model, Status: rec.Status, Settings: rec.Settings, Usage: rec.Usage, Error: rec.Error,
		Started: rec.Started, Ended: rec.Ended,
	}
	return nil
}

// Runs returns every run, oldest first. A run whose record is damaged is
// left out and reported to Options.Warn.
func (s *Store) Runs() ([]Run, error) {
	var runs []Run
	err := s.view(func(txn *badger.Txn) error {
		prefix := []byte(nsRun)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			var r Run
			if err := readValue(it.Item(), func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				s.skip("run "+runIDOf(it.Item().Key()), err)
				continue
			}
			runs = append(runs, r)
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("listing runs", err)
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return runs, nil
}

// Step is the record of one model request of a run.
type Step struct {
	Run  string `json:"run"`
	N    int    `json:"n"`
	Turn int    `json:"turn"`
	// Request is the HTTP request body exactly as sent, Response the
	// response body; both are stored byte for byte (nil stays nil).
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Refs are the tool outputs stored while handling the response.
	Refs    []string  `json:"refs,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Error   string    `json:"error,omitempty"`
}

// stepRecord is the stored part of a Step besides its bodies.
type stepRecord struct {
	Turn           int
	Refs           []string
	Started, Ended time.Time
	Error          string
}

// PutStep writes st, replacing any earlier record of the same step (so a
// step can be written when its request is sent and again when its response
// arrives), and syncs it to disk.
func (s *Store) PutStep(st Step) error {
	if err := checkRunID(st.Run); err != nil {
		return err
	}
	if err := checkStep(st.N); err != nil {
		return err
	}
	hdr, err := json.Marshal(stepRecord{Turn: st.Turn, Refs: st.Refs, Started: st.Started, Ended: st.Ended, Error: st.Error})
	if err != nil {
		return fmt.Errorf("encoding step %d of run %s: %w", st.N, st.Run, err)
	}
	prefix := stepPrefix(st.Run, st.N)
	err = s.update(func(txn *badger.Txn) error {
		if err := deletePrefix(txn, prefix); err != nil {
			return err
		}
		if err := putBlob(txn, key(string(prefix), "q/"), st.Request); err != nil {
			return err
		}
		if err := putBlob(txn, key(string(prefix), "a/"), st.Response); err != nil {
			return err
		}
		return txn.Set(key(string(prefix), "h"), hdr)
	})
	if err != nil {
		return s.errTxn(fmt.Sprintf("storing step %d of run %s", st.N, st.Run), err)
	}
	return s.sync()
}

// Steps returns the steps of run in order. A step whose record or bodies
// are damaged is left out and reported to Options.Warn.
func (s *Store) Steps(run string) ([]Step, error) {
	if err := checkRunID(run); err != nil {
		return nil, err
	}
	var steps []Step
	err := s.view(func(txn *badger.Txn) error {
		prefix := stepsPrefix(run)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			k := it.Item().Key()
			// Only the step record: s/<run>/<step>/h.
			if len(k) != len(prefix)+6 || k[len(k)-1] != 'h' {
				continue
			}
			n := int(binary.BigEndian.Uint32(k[len(prefix):]))
			what := fmt.Sprintf("step %d of run %s", n, run)
			var rec stepRecord
			if err := readValue(it.Item(), func(v []byte) error { return json.Unmarshal(v, &rec) }); err != nil {
				s.skip(what, err)
				continue
			}
			st := Step{Run: run, N: n, Turn: rec.Turn, Refs: rec.Refs, Started: rec.Started, Ended: rec.Ended, Error: rec.Error}
			sp := stepPrefix(run, n)
			var err error
			if st.Request, err = getBlob(txn, key(string(sp), "q/")); err != nil && !errors.Is(err, errNoBlob) {
				s.skip("the request of "+what, err)
				continue
			}
			if st.Response, err = getBlob(txn, key(string(sp), "a/")); err != nil && !errors.Is(err, errNoBlob) {
				s.skip("the response of "+what, err)
				continue
			}
			steps = append(steps, st)
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("reading the steps of run "+run, err)
	}
	return steps, nil
}

// Event is something that happened during a run, such as messages pruned
// from the conversation. Seq orders the events of a run from 1.
type Event struct {
	Run  string          `json:"run"`
	Step int             `json:"step"`
	Seq  int             `json:"seq"`
	Data json.RawMessage `json:"data"`
}

// AddEvent appends an event to run, after all its earlier events, and
// syncs it to disk. ev is stored byte for byte.
func (s *Store) AddEvent(run string, step int, ev json.RawMessage) error {
	if err := checkRunID(run); err != nil {
		return err
	}
	if err := checkStep(step); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	err := s.update(func(txn *badger.Txn) error {
		prefix := eventsPrefix(run)
		seq := 1
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		it.Seek(key(string(prefix), "\xff\xff\xff\xff\xff"))
		if it.Valid() {
			seq = int(binary.BigEndian.Uint32(it.Item().Key()[len(prefix):])) + 1
		}
		it.Close()
		val := make([]byte, 4, 4+len(ev))
		binary.BigEndian.PutUint32(val, uint32(step))
		return txn.Set(key(string(prefix), be32(seq)), append(val, ev...))
	})
	if err != nil {
		return s.errTxn("storing an event of run "+run, err)
	}
	return s.sync()
}

// Events returns the events of run in the order they were added. A damaged
// event is left out and reported to Options.Warn.
func (s *Store) Events(run string) ([]Event, error) {
	if err := checkRunID(run); err != nil {
		return nil, err
	}
	var evs []Event
	err := s.view(func(txn *badger.Txn) error {
		prefix := eventsPrefix(run)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			item := it.Item()
			if len(item.Key()) != len(prefix)+4 {
				continue
			}
			ev := Event{Run: run, Seq: int(binary.BigEndian.Uint32(item.Key()[len(prefix):]))}
			if err := readValue(item, func(v []byte) error {
				if len(v) < 4 {
					return errors.New("shorter than its step number")
				}
				ev.Step = int(binary.BigEndian.Uint32(v))
				ev.Data = append(json.RawMessage{}, v[4:]...)
				return nil
			}); err != nil {
				s.skip(fmt.Sprintf("event %d of run %s", ev.Seq, run), err)
				continue
			}
			evs = append(evs, ev)
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("reading the events of run "+run, err)
	}
	return evs, nil
}

// PutConversation stores the conversation of run (replacing the previous
// one) byte for byte, and syncs it to disk.
func (s *Store) PutConversation(run string, data json.RawMessage) error {
	if err := checkRunID(run); err != nil {
		return err
	}
	if data == nil {
		data = json.RawMessage{}
	}
	if err := s.update(func(txn *badger.Txn) error {
		return putBlob(txn, convPrefix(run), data)
	}); err != nil {
		return s.errTxn("storing the conversation of run "+run, err)
	}
	return s.sync()
}

// Conversation returns the conversation stored for run.
func (s *Store) Conversation(run string) (json.RawMessage, error) {
	if err := checkRunID(run); err != nil {
		return nil, err
	}
	var data []byte
	err := s.view(func(txn *badger.Txn) error {
		var err error
		data, err = getBlob(txn, convPrefix(run))
		if errors.Is(err, errNoBlob) {
			return &notFoundError{fmt.Sprintf("no conversation stored for run %q: it ended before its first request", run)}
		}
		if err != nil {
			return s.damagedRecord("the conversation of run "+run, err)
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("reading the conversation of run "+run, err)
	}
	return data, nil
}
