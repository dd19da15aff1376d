package toolmem

import (
	"bytes"
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

// maxRunIDLen bounds run IDs.
const maxRunIDLen = 64

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
	// Costs is what the run's owner records of what the run cost, in
	// its own form, for later runs to read from the run record alone
	// (RunHeadsNewest), without the run's steps or settings.
	Costs   json.RawMessage `json:"costs,omitempty"`
	Error   string          `json:"error,omitempty"`
	Started time.Time       `json:"started"`
	Ended   time.Time       `json:"ended"`

	// settingsApart: decoded from a record whose settings are under
	// their own key, not read yet.
	settingsApart bool
}

// runRecord is how a Run is stored: byte slices rather than RawMessage,
// which encoding/json would compact and require to be valid.
type runRecord struct {
	ID, Repo, Base, Head, BaseSHA, HeadSHA, Model, Status string
	Settings, Usage                                       []byte
	Costs                                                 []byte `json:",omitempty"`
	Error                                                 string
	Started, Ended                                        time.Time
	// SettingsApart says the settings are stored under their own key,
	// written when they change, not in every run record.
	SettingsApart bool `json:",omitempty"`
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
	if len(id) > maxRunIDLen {
		return inputErrorf("run ID %.20q... is longer than %d characters", id, maxRunIDLen)
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
	if r.settingsApart {
		// Written back, it would delete the settings it was read without.
		return fmt.Errorf("internal error: run %s was read without its settings (RunHeadsNewest) and cannot be written", r.ID)
	}
	// The settings, which hold the units of a large diff, go under their
	// own key, written when they change: the run record is written again
	// after every step.
	apart := len(r.Settings) > 0
	data, err := json.Marshal(runRecord{
		ID: r.ID, Repo: r.Repo, Base: r.Base, Head: r.Head, BaseSHA: r.BaseSHA, HeadSHA: r.HeadSHA,
		Model: r.Model, Status: r.Status, Usage: r.Usage, Costs: r.Costs, Error: r.Error,
		Started: r.Started, Ended: r.Ended, SettingsApart: apart,
	})
	if err != nil {
		return fmt.Errorf("encoding run %s: %w", r.ID, err)
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.memo.init()
	var p pending
	set := settingsPrefix(r.ID)
	if err := s.update(func(txn *badger.Txn) error {
		if !s.memo.same(set, r.Settings) {
			p.wrote(set, r.Settings)
			if err := putBlob(txn, set, r.Settings); err != nil {
				return err
			}
		}
		if err := markRunning(txn, r); err != nil {
			return err
		}
		return txn.Set(runKey(r.ID), data)
	}); err != nil {
		return s.errTxn("storing run "+r.ID, err)
	}
	s.memo.commit(&p)
	s.memo.remember(set, r.Settings)
	return s.sync()
}

// markRunning keeps r's mark (nsRunning) as its status says: set while it
// runs, deleted when it ends. The record is written after every step: a
// mark already set, or already absent, is not written again.
func markRunning(txn *badger.Txn, r Run) error {
	k := runningKey(r.ID)
	_, err := txn.Get(k)
	switch {
	case err != nil && !errors.Is(err, badger.ErrKeyNotFound):
		return err
	case r.Status == StatusRunning && err != nil:
		return txn.Set(k, nil)
	case r.Status != StatusRunning && err == nil:
		return txn.Delete(k)
	}
	return nil
}

// Running returns the runs recorded as running, oldest first: at once
// from their marks (nsRunning). A store written before the marks is read
// whole, once; its running runs are then marked, and the marks said to
// be complete, when the store is writable.
func (s *Store) Running() ([]Run, error) {
	var runs []Run
	complete := false
	err := s.view(func(txn *badger.Txn) error {
		if _, err := txn.Get([]byte(nsRunning)); err != nil {
			if errors.Is(err, badger.ErrKeyNotFound) {
				return nil
			}
			return err
		}
		complete = true
		prefix := []byte(nsRunning)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			id := strings.TrimSuffix(string(it.Item().Key()[len(prefix):]), "/")
			if id == "" {
				continue // the key saying the marks are complete
			}
			item, err := txn.Get(runKey(id))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue // a mark the run's deletion left behind
			}
			if err != nil {
				return err
			}
			var r Run
			if err := readValue(item, func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				s.skip("run "+id, err)
				continue
			}
			if err := s.loadSettings(txn, &r); err != nil {
				s.skip("the settings of run "+r.ID, err)
				continue
			}
			if r.Status == StatusRunning {
				runs = append(runs, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.errTxn("listing running runs", err)
	}
	if complete {
		sortRuns(runs)
		return runs, nil
	}
	all, err := s.Runs()
	if err != nil {
		return nil, err
	}
	runs = runs[:0]
	for _, r := range all {
		if r.Status == StatusRunning {
			runs = append(runs, r)
		}
	}
	if s.readOnly {
		return runs, nil
	}
	err = s.update(func(txn *badger.Txn) error {
		for _, r := range runs {
			if err := txn.Set(runningKey(r.ID), nil); err != nil {
				return err
			}
		}
		return txn.Set([]byte(nsRunning), nil)
	})
	if err != nil {
		return nil, s.errTxn("marking running runs", err)
	}
	return runs, s.sync()
}

// loadSettings reads the settings of a run decoded from a record that
// keeps them apart.
func (s *Store) loadSettings(txn *badger.Txn, r *Run) error {
	if !r.settingsApart {
		return nil
	}
	set, err := getBlob(txn, settingsPrefix(r.ID))
	if errors.Is(err, errNoBlob) {
		err = errors.New("its settings are missing")
	}
	if err != nil {
		return err
	}
	r.Settings, r.settingsApart = set, false
	return nil
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
			if err := s.loadSettings(txn, &r); err != nil {
				return s.damagedRecord("the settings of run "+id, err)
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
				if err := s.loadSettings(txn, &r); err != nil {
					return s.damagedRecord("the settings of run "+matches[0], err)
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
		Model: rec.Model, Status: rec.Status, Settings: rec.Settings, Usage: rec.Usage, Costs: rec.Costs, Error: rec.Error,
		Started: rec.Started, Ended: rec.Ended, settingsApart: rec.SettingsApart,
	}
	return nil
}

// RunHeadsNewest calls f with each run, newest first by ID (an ID starts
// with the run's start time, NewRunID), until f returns false, without the
// settings a run keeps under their own key (Settings is nil then; Run reads
// them): a reader of the newest runs' records alone, as a plan's forecast
// at every start, reads no more of a store of many runs than it needs. A
// run whose record is damaged is left out and reported to Options.Warn.
func (s *Store) RunHeadsNewest(f func(Run) bool) error {
	err := s.view(func(txn *badger.Txn) error {
		prefix := []byte(nsRun)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer it.Close()
		for it.Seek(key(nsRun, "\xff")); it.Valid(); it.Next() {
			var r Run
			if err := readValue(it.Item(), func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				s.skip("run "+runIDOf(it.Item().Key()), err)
				continue
			}
			if !f(r) {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return s.errTxn("listing runs", err)
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
		apart := map[string]int{} // runs whose settings are apart, by ID
		for it.Seek(prefix); it.Valid(); it.Next() {
			var r Run
			if err := readValue(it.Item(), func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				s.skip("run "+runIDOf(it.Item().Key()), err)
				continue
			}
			if r.settingsApart {
				apart[r.ID] = len(runs)
			}
			runs = append(runs, r)
		}
		if len(apart) == 0 {
			return nil
		}
		// The settings of every run in one pass (scanBlobs), not a
		// read each.
		err := scanBlobs(txn, nsSettings, func(id string, data []byte, err error) {
			i, ok := apart[id]
			if !ok {
				return
			}
			delete(apart, id)
			if err != nil {
				s.skip("the settings of run "+id, err)
				return
			}
			runs[i].Settings, runs[i].settingsApart = data, false
		})
		if err != nil {
			return err
		}
		// Left in apart: the runs whose settings were not found.
		kept := runs[:0]
		for _, r := range runs {
			if !r.settingsApart {
				kept = append(kept, r)
			} else if _, missing := apart[r.ID]; missing {
				s.skip("the settings of run "+r.ID, errors.New("its settings are missing"))
			}
		}
		runs = kept
		return nil
	})
	if err != nil {
		return nil, s.errTxn("listing runs", err)
	}
	sortRuns(runs)
	return runs, nil
}

// sortRuns puts runs oldest first.
func sortRuns(runs []Run) {
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
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
	// Figures are JSON the caller defines (the request's tokens by
	// layer); they are stored byte for byte with the step record.
	Figures json.RawMessage `json:"figures,omitempty"`
}

// stepRecord is the stored part of a Step besides its bodies.
type stepRecord struct {
	Turn           int
	Refs           []string
	Started, Ended time.Time
	Error          string
	Figures        []byte `json:",omitempty"`
}

// PutStep writes st, replacing any earlier record of the same step (so a
// step can be written when its request is sent and again when its response
// arrives), and syncs it to disk. A step this process wrote before keeps the
// bodies that did not change: only what changed is written again. The
// bodies are stored byte for byte: review/record stores a request as its
// difference from an earlier one.
func (s *Store) PutStep(st Step) error {
	if err := checkRunID(st.Run); err != nil {
		return err
	}
	if err := checkStep(st.N); err != nil {
		return err
	}
	hdr, err := json.Marshal(stepRecord{Turn: st.Turn, Refs: st.Refs, Started: st.Started, Ended: st.Ended, Error: st.Error, Figures: st.Figures})
	if err != nil {
		return fmt.Errorf("encoding step %d of run %s: %w", st.N, st.Run, err)
	}
	prefix := stepPrefix(st.Run, st.N)
	reqKey, respKey := key(string(prefix), "q/"), key(string(prefix), "a/")
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.memo.init()
	var p pending
	err = s.update(func(txn *badger.Txn) error {
		if _, known := s.memo.blobs[string(reqKey)]; !known {
			// Not written by this process: it may hold anything, and is
			// replaced whole.
			if err := deletePrefix(txn, prefix); err != nil {
				return err
			}
		}
		if !s.memo.same(reqKey, st.Request) {
			p.wrote(reqKey, st.Request)
			if err := putBlob(txn, reqKey, st.Request); err != nil {
				return err
			}
		}
		if !s.memo.same(respKey, st.Response) {
			p.wrote(respKey, st.Response)
			if err := putBlob(txn, respKey, st.Response); err != nil {
				return err
			}
		}
		return txn.Set(key(string(prefix), "h"), hdr)
	})
	if err != nil {
		return s.errTxn(fmt.Sprintf("storing step %d of run %s", st.N, st.Run), err)
	}
	s.memo.commit(&p)
	return s.sync()
}

// Steps returns the steps of run in order, their bodies as they were
// stored. A step whose record or bodies are damaged is left out and
// reported to Options.Warn.
func (s *Store) Steps(run string) ([]Step, error) {
	return s.steps(run, true)
}

// StepHeads returns the steps of run in order without their bodies: their
// turns, times, errors and figures, for a reader of many runs that needs
// no request's bytes.
func (s *Store) StepHeads(run string) ([]Step, error) {
	return s.steps(run, false)
}

// steps is Steps, with the bodies when bodies is set.
func (s *Store) steps(run string, bodies bool) ([]Step, error) {
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
			st := Step{Run: run, N: n, Turn: rec.Turn, Refs: rec.Refs, Started: rec.Started, Ended: rec.Ended, Error: rec.Error, Figures: rec.Figures}
			if !bodies {
				steps = append(steps, st)
				continue
			}
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

// Skip reports a record left out as damaged to Options.Warn, as the
// store's own readers do, for a caller that finds damage in what it
// decodes of the store's bytes.
func (s *Store) Skip(record string, err error) { s.skip(record, err) }

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

// Conversation is a run's conversation as the store keeps it: its parts
// (the messages), each under a key of its own so that a step rewrites only
// the parts that changed and a run's records grow with what it sent rather
// than with the square of its steps, and Next, a number the caller keeps
// with them. Whole is a conversation kept in one piece instead, as earlier
// versions stored every conversation; Parts is then nil. The store does
// not read what the parts hold.
type Conversation struct {
	Parts [][]byte
	Next  int
	Whole []byte
	// Changed, when not nil, lists the only parts that differ from those
	// stored: the others are kept without being read or written again.
	Changed []int
}

// PutConversation stores the conversation of run, replacing the previous
// one, and syncs it to disk; Conversation returns it byte for byte.
func (s *Store) PutConversation(run string, c Conversation) error {
	if err := checkRunID(run); err != nil {
		return err
	}
	if c.Parts == nil {
		data := c.Whole
		if data == nil {
			data = []byte{}
		}
		if err := s.update(func(txn *badger.Txn) error {
			if err := deletePrefix(txn, turnsPrefix(run)); err != nil {
				return err
			}
			return putBlob(txn, convPrefix(run), data)
		}); err != nil {
			return s.errTxn("storing the conversation of run "+run, err)
		}
		return s.sync()
	}
	if err := s.putParts(run, c); err != nil {
		return s.errTxn("storing the conversation of run "+run, err)
	}
	return s.sync()
}

// partsPerTxn and partBytesPerTxn bound the parts one transaction
// writes: a long review's conversation can change more than one Badger
// transaction holds (a share of the memtable), so its parts go in several,
// the header, which says how many parts there are, in the last.
// A batch stays under maxTxnBytes with room for its keys; one that passes
// partBytesPerTxn holds a single part, under valueThreshold or in the
// value log (TestTransactionsFit).
const (
	partsPerTxn     = 64
	partBytesPerTxn = 256 << 10
)

// putParts writes the parts of c that changed, in as many transactions as
// they take, then drops those it no longer has and writes the header.
func (s *Store) putParts(run string, c Conversation) error {
	var (
		old    int
		writes []int
	)
	if err := guard(s.dir, func() error {
		return s.db.View(func(txn *badger.Txn) error {
			var err error
			old, writes, err = partsToWrite(txn, run, c)
			return err
		})
	}); err != nil {
		return err
	}
	for len(writes) > 0 {
		n, size := 0, 0
		for n < len(writes) && n < partsPerTxn && (n == 0 || size+len(c.Parts[writes[n]]) <= partBytesPerTxn) {
			size += len(c.Parts[writes[n]])
			n++
		}
		batch := writes[:n]
		writes = writes[n:]
		if err := s.updateSized(int64(size), func(txn *badger.Txn) error {
			for _, i := range batch {
				if err := txn.Set(turnKey(run, i), c.Parts[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return s.update(func(txn *badger.Txn) error {
		if old == 0 {
			if err := deletePrefix(txn, convPrefix(run)); err != nil {
				return err // a whole conversation from before: replaced
			}
		}
		return putTurnsTail(txn, run, c, old)
	})
}

// partsToWrite reads how many parts are stored for run and says which of
// c's to write: those c says changed, or, when it does not say, those that
// differ from the stored ones.
func partsToWrite(txn *badger.Txn, run string, c Conversation) (old int, writes []int, err error) {
	if item, err := txn.Get(turnsPrefix(run)); err == nil {
		var h turnsHeader
		if err := readValue(item, func(v []byte) error { return json.Unmarshal(v, &h) }); err == nil {
			old = h.Count
		}
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil, err
	}
	if c.Changed != nil && old > 0 {
		for _, i := range c.Changed {
			if i < 0 || i >= len(c.Parts) {
				return 0, nil, fmt.Errorf("conversation part %d of %d", i, len(c.Parts))
			}
		}
		writes = append(writes, c.Changed...)
		for i := old; i < len(c.Parts); i++ {
			if !slices.Contains(c.Changed, i) {
				writes = append(writes, i) // new parts are always written
			}
		}
		return old, writes, nil
	}
	for i, m := range c.Parts {
		if i < old {
			same := false
			if item, err := txn.Get(turnKey(run, i)); err == nil {
				_ = readValue(item, func(v []byte) error { same = bytes.Equal(v, m); return nil })
			}
			if same {
				continue
			}
		}
		writes = append(writes, i)
	}
	return old, writes, nil
}

// putTurnsTail drops the parts past c's of the old parts stored, and
// writes the header.
func putTurnsTail(txn *badger.Txn, run string, c Conversation, old int) error {
	for i := len(c.Parts); i < old; i++ {
		if err := txn.Delete(turnKey(run, i)); err != nil {
			return err
		}
	}
	h, err := json.Marshal(turnsHeader{Count: len(c.Parts), Next: c.Next})
	if err != nil {
		return err
	}
	return txn.Set(turnsPrefix(run), h)
}

// turnsHeader heads a conversation stored in parts.
type turnsHeader struct {
	Count int `json:"count"`
	Next  int `json:"next"`
}

// Conversation returns the conversation stored for run.
func (s *Store) Conversation(run string) (Conversation, error) {
	if err := checkRunID(run); err != nil {
		return Conversation{}, err
	}
	var c Conversation
	err := s.view(func(txn *badger.Txn) error {
		if item, err := txn.Get(turnsPrefix(run)); err == nil {
			var h turnsHeader
			if err := readValue(item, func(v []byte) error { return json.Unmarshal(v, &h) }); err != nil {
				return s.damagedRecord("the conversation of run "+run, err)
			}
			c.Parts, c.Next = make([][]byte, 0, h.Count), h.Next
			for i := range h.Count {
				item, err := txn.Get(turnKey(run, i))
				if err == nil {
					err = readValue(item, func(v []byte) error {
						c.Parts = append(c.Parts, append([]byte(nil), v...))
						return nil
					})
				}
				if err != nil {
					return s.damagedRecord("the conversation of run "+run, fmt.Errorf("message %d: %w", i, err))
				}
			}
			return nil
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		var err error
		c.Whole, err = getBlob(txn, convPrefix(run))
		if errors.Is(err, errNoBlob) {
			return &notFoundError{fmt.Sprintf("no conversation stored for run %q: it ended before its first request", run)}
		}
		if err != nil {
			return s.damagedRecord("the conversation of run "+run, err)
		}
		return nil
	})
	if err != nil {
		return Conversation{}, s.errTxn("reading the conversation of run "+run, err)
	}
	return c, nil
}
