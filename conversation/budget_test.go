package conversation

import "testing"

func TestBudget(t *testing.T) {
	b := DefaultBudget(128000)
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.Input() != 128000-8192 || b.Static() != (128000-8192)/2 {
		t.Errorf("input %d static %d", b.Input(), b.Static())
	}
	small := DefaultBudget(8192)
	if small.AnswerReserve != 2048 {
		t.Errorf("reserve for an 8k window = %d, want 2048", small.AnswerReserve)
	}
	for _, mut := range []func(*Budget){
		func(b *Budget) { b.ContextWindow = 0 },
		func(b *Budget) { b.AnswerReserve = b.ContextWindow },
		func(b *Budget) { b.StaticShare = 0 },
		func(b *Budget) { b.StaticShare = 1.5 },
		func(b *Budget) { b.MaxSteps = 0 },
	} {
		bad := DefaultBudget(128000)
		mut(&bad)
		if bad.Validate() == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}
