package conversation

import "testing"

func TestContextWindowFor(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"gpt-4o-mini", 128000},
		{"gpt-4", 8192},
		{"gpt-4-turbo-2024-04-09", 128000},
		{"gpt-4.1-mini", 1047576},
		{"moonshot-v1-32k", 32768},
		{"unknown-model", DefaultContextWindow},
	} {
		if got := ContextWindowFor(tc.model); got != tc.want {
			t.Errorf("ContextWindowFor(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
}

func TestBudget(t *testing.T) {
	b := DefaultBudget("gpt-4o")
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if b.Input() != 128000-8192 || b.Static() != (128000-8192)/2 {
		t.Errorf("input %d static %d", b.Input(), b.Static())
	}
	small := DefaultBudget("gpt-4")
	if small.AnswerReserve != 2048 {
		t.Errorf("reserve for an 8k window = %d, want 2048", small.AnswerReserve)
	}
	for _, mut := range []func(*Budget){
		func(b *Budget) { b.ContextWindow = 0 },
		func(b *Budget) { b.AnswerReserve = b.ContextWindow },
		func(b *Budget) { b.StaticShare = 0 },
		func(b *Budget) { b.StaticShare = 1.5 },
		func(b *Budget) { b.PreviewChars = 10 },
		func(b *Budget) { b.MaxSteps = 0 },
	} {
		bad := DefaultBudget("gpt-4o")
		mut(&bad)
		if bad.Validate() == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}
