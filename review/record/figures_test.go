package record

import (
	"testing"

	"github.com/reviewdev/review/conversation"
)

// TestNaiveByUnit follows units side by side as one naive transcript
// each: a unit's loop is its own conversation, so its naive request holds
// the static layer and its own messages, never the other units'.
func TestNaiveByUnit(t *testing.T) {
	c, err := conversation.NewCounter("", conversation.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	static := []conversation.Message{
		{ID: "m1", Role: conversation.System, Content: "You review code.", Layer: conversation.Static},
		{ID: "m2", Role: conversation.User, Content: "The overview of the change.", Layer: conversation.Static},
	}
	unit := func(k int) []conversation.Message {
		id := string(rune('0' + k))
		return append(static[:2:2],
			conversation.Message{ID: "u" + id + ".m3", Role: conversation.User, Content: "The hunks of unit " + id + ", a long text of its own.", Layer: conversation.Loop, Turn: k},
			conversation.Message{ID: "u" + id + ".m4", Role: conversation.Assistant, Content: "Reading unit " + id + ".", Layer: conversation.Loop, Turn: k})
	}
	none := func(string) (int, bool) { return 0, false }
	var tl Tally
	for k := 1; k <= 3; k++ {
		msgs := unit(k)
		want := 10
		for _, m := range msgs {
			want += c.CountMessage(m)
		}
		if got := tl.Naive(k, c, msgs, 10, none); got != want {
			t.Errorf("unit %d: naive request of %d tokens, want %d (its own messages only)", k, got, want)
		}
	}
	// In sequence (unit 0) the transcript is one: what was sent stays.
	var seq Tally
	first := seq.Naive(0, c, unit(1), 0, none)
	if got := seq.Naive(0, c, unit(2), 0, none); got <= first {
		t.Errorf("in sequence the second request's naive size is %d, want more than the first's %d", got, first)
	}
}
