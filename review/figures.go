package review

import (
	"encoding/json"
	"sync"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/record"
)

// The figures of a session's steps: each request's tokens by layer and
// the naive transcript's, recorded with its step (record.StepFigures).

// figureState is what a session keeps to record each step's figures.
type figureState struct {
	tally record.Tally
	// whole are the tokens of the outputs stored during the run, by ref,
	// counted in the background: an output is counted while the request
	// that carries its preview is under way, off the loop's path.
	whole map[string]*wholeCount
	// mu guards the fields above: units side by side share them.
	mu sync.Mutex
}

// wholeCount is the token count of one stored output, once done is closed.
type wholeCount struct {
	done chan struct{}
	n    int
}

// figures returns the session's figure state, read back from the run's
// records for a run resumed with steps already made.
func (s *Session) figures() *figureState {
	if s.fig != nil {
		return s.fig
	}
	s.fig = &figureState{whole: map[string]*wholeCount{}}
	if s.Steps == 0 {
		return s.fig
	}
	r, err := record.Load(s.Store, s.Run.ID)
	if err != nil {
		return s.fig // the new steps are counted from here on
	}
	s.fig.tally = *record.Resume(s.Store, r, s.figureCounter())
	return s.fig
}

// figureCounter counts the run's figures: exactly, whatever decided the
// run's limits (bounds far from them). A figure shown to a user (the
// tokens sent, the largest request, a step's layers, a prune) must not be
// below the count it stands for, and an estimate can be; the server's
// usage, where it reports it, is recorded beside ours. Only a run counted
// with --tokenizer estimate records estimates, marked as such.
func (s *Session) figureCounter() *conversation.Counter {
	return s.Counter.Exact()
}

// stored notes a tool output stored under ref and starts counting it
// whole, for the naive transcript.
func (s *Session) stored(ref, output string) {
	c := s.figureCounter()
	f := s.figures()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.whole[ref]; ok {
		return
	}
	w := &wholeCount{done: make(chan struct{})}
	f.whole[ref] = w
	go func() {
		defer close(w.done)
		w.n = record.WholeTokens(c, output)
	}()
}

// stepLayers counts a request made of msgs and tool definitions of
// toolTokens by layer: the figures recorded as it is sent.
func (s *Session) stepLayers(c *conversation.Counter, msgs []conversation.Message, toolTokens int) (record.StepFigures, json.RawMessage) {
	sf := record.StepFigures{Layers: record.CountLayers(c, msgs, toolTokens), Estimated: c.Kind() != conversation.ExactCount}
	sf.Tokens = sf.Layers.Total()
	b, _ := json.Marshal(sf)
	return sf, b
}

// stepNaive adds the naive transcript's size to the figures of step n,
// once its request went out, and keeps them for the run's efficiency.
func (s *Session) stepNaive(n int, c *conversation.Counter, sf record.StepFigures, msgs []conversation.Message, toolTokens int) json.RawMessage {
	f := s.figures()
	f.mu.Lock()
	defer f.mu.Unlock()
	unit := 0
	if s.lane != nil {
		unit = s.lane.unit
	}
	sf.Naive = f.tally.Naive(unit, c, msgs, toolTokens, func(ref string) (int, bool) {
		w, ok := f.whole[ref]
		if !ok {
			return 0, false
		}
		<-w.done
		return w.n, true
	})
	f.tally.Set(n, sf)
	b, _ := json.Marshal(sf)
	return b
}

// efficiency is the run's efficiency so far.
func (s *Session) efficiency() *record.Efficiency {
	f := s.figures()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tally.Efficiency(s.Budget.ContextWindow)
}
