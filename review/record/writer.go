package record

import (
	"fmt"
	"sync"

	"github.com/reviewdev/review/toolmem"
)

// Writer writes the records of one run: the run record, its steps, its
// events and its conversation, each in the form Load and LoadConversation
// read. A step may be written several times (when its request is sent,
// when its answer arrives, when its tool outputs are stored); only what
// changed reaches the disk. It is safe for concurrent use.
type Writer struct {
	st  *toolmem.Store
	run string

	mu    sync.Mutex
	chain reqChain // the requests written, for the deltas of later ones
	// lanes are the chains of units side by side, by unit: a unit's
	// request is stored against its own unit's request before it.
	lanes map[int]reqChain
}

// NewWriter returns the writer of run's records in st.
func NewWriter(st *toolmem.Store, run string) *Writer {
	return &Writer{st: st, run: run}
}

// For reports whether w writes run in st.
func (w *Writer) For(st *toolmem.Store, run string) bool {
	return w != nil && w.st == st && w.run == run
}

// Run writes the run record r, which must be w's run, and syncs it.
func (w *Writer) Run(r toolmem.Run) error {
	if r.ID != w.run {
		return fmt.Errorf("internal error: the writer of run %s asked to write run %s", w.run, r.ID)
	}
	return w.st.PutRun(r)
}

// Step writes st, a step of w's run, replacing any earlier record of the
// step, and syncs it. Its request is stored as its difference from an
// earlier step's when that saves space (see deltaMagic).
func (w *Writer) Step(st toolmem.Step) error {
	return w.LaneStep(0, st)
}

// LaneStep is Step for a step of unit lane (from 1) of units reviewed side
// by side, whose requests are stored against the unit's own; lane 0 is
// the run's one sequence of requests.
func (w *Writer) LaneStep(lane int, st toolmem.Step) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	chain := w.chain
	if lane != 0 {
		chain = w.lanes[lane]
	}
	stored, next := delta(chain, st)
	st.Request = stored
	if err := w.st.PutStep(st); err != nil {
		return err
	}
	if lane == 0 {
		w.chain = next
		return nil
	}
	if w.lanes == nil {
		w.lanes = map[int]reqChain{}
	}
	w.lanes[lane] = next
	return nil
}

// EndLane forgets the chain of unit lane, whose unit ended: it holds the
// unit's last request, and a run of many units would keep every one.
func (w *Writer) EndLane(lane int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.lanes, lane)
}

// Event appends ev to the run's events, with the step it belongs to or
// precedes, and syncs it.
func (w *Writer) Event(step int, ev Event) error {
	data, err := Encode(ev)
	if err != nil {
		return err
	}
	return w.st.AddEvent(w.run, step, data)
}

// ConversationParts records the conversation in parts, writing only the
// parts changed since the last save (conversation.History.Parts); with
// changed nil, the parts that differ from those stored.
func (w *Writer) ConversationParts(parts [][]byte, changed []int, next int) error {
	return w.st.PutConversation(w.run, toolmem.Conversation{Parts: parts, Next: next, Changed: changed})
}

// Conversation stores the run's conversation, data as package
// conversation encodes it: {"messages": [...], "next": N}. It is stored
// message by message (toolmem.Conversation), so each step rewrites only
// the messages that changed (the new ones, and those pruning changed).
// Data of another form is stored whole.
func (w *Writer) Conversation(data []byte) error {
	parts, next, ok := splitConversation(data)
	if !ok {
		if data == nil {
			data = []byte{}
		}
		return w.st.PutConversation(w.run, toolmem.Conversation{Whole: data})
	}
	return w.st.PutConversation(w.run, toolmem.Conversation{Parts: parts, Next: next})
}
