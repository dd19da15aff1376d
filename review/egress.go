package review

import (
	"fmt"

	"github.com/reviewdev/review/review/record"
)

// recordEgress records what the run sent since it last did (Agent.Egress):
// at every save, so that a run killed mid-way still says where its data
// went up to its last step.
func (s *Session) recordEgress() error {
	r := s.Agent.Egress.Take()
	if r.Empty() {
		return nil
	}
	if err := s.records().Event(s.Steps, record.Egress{Record: r}); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	return nil
}
