package review

import (
	"math"
	"testing"
)

func TestPriceFor(t *testing.T) {
	mini := Price{Prompt: 0.15, Cached: 0.075, Completion: 0.60}
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o-mini", mini, true},
		{"GPT-4o-Mini", mini, true},
		{" gpt-4o-mini\n", mini, true},
		{"gpt-4o-mini-2024-07-18", mini, true},
		{"openai/gpt-4o-mini", mini, true},
		{"gpt-4o-2024-08-06", Price{Prompt: 2.50, Cached: 1.25, Completion: 10}, true},
		{"gpt-5-2025-08-07", Price{Prompt: 1.25, Cached: 0.125, Completion: 10}, true},
		{"gpt-5-mini-2025-08-07", Price{Prompt: 0.25, Cached: 0.025, Completion: 2}, true},
		{"gpt-4.1-nano-2025-04-14", Price{Prompt: 0.10, Cached: 0.025, Completion: 0.40}, true},
		{"o3-mini-2025-01-31", Price{Prompt: 1.10, Cached: 0.55, Completion: 4.40}, true},
		{"deepseek-chat", Price{Prompt: 0.28, Cached: 0.028, Completion: 0.42}, true},
		{"deepseek/deepseek-reasoner", Price{Prompt: 0.28, Cached: 0.028, Completion: 0.42}, true},
		{"gpt-4o-mini-search-preview", Price{}, false},
		{"ft:gpt-4o-mini:acme::abc123", Price{}, false},
		{"gpt-4o-minix", Price{}, false},
		{"gpt", Price{}, false},
		{"llama3.1:8b", Price{}, false},
		{"", Price{}, false},
		{"-", Price{}, false},
		{"gpt-4o-", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := PriceFor(tt.model)
		if ok != tt.ok || got != tt.want {
			t.Errorf("PriceFor(%q) = %+v, %v; want %+v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCost(t *testing.T) {
	p := Price{Prompt: 2, Cached: 0.5, Completion: 8}
	tests := []struct {
		name string
		u    RunUsage
		want float64
	}{
		{"nothing", RunUsage{}, 0},
		{"prompt only", RunUsage{Prompt: 1_000_000}, 2},
		{"cached inside prompt", RunUsage{Prompt: 1_000_000, Cached: 250_000}, 0.75*2 + 0.25*0.5},
		{"all cached", RunUsage{Prompt: 400_000, Cached: 400_000}, 0.2},
		{"completion", RunUsage{Completion: 500_000, Prompt: 10}, 4 + 10*2/1e6},
		{"own count when none reported", RunUsage{Own: 3_000_000, Completion: 1000}, 6 + 0.008},
		{"reported count wins", RunUsage{Prompt: 1_000_000, Own: 9_000_000}, 2},
		{"cached above prompt is capped", RunUsage{Prompt: 100, Cached: 1000}, 100 * 0.5 / 1e6},
		{"negative counts are zero", RunUsage{Prompt: -5, Cached: -1, Completion: -7, Own: -3}, 0},
	}
	for _, tt := range tests {
		if got := tt.u.Cost(p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cost = %v, want %v", tt.name, got, tt.want)
		}
	}
	// A realistic review: 3 requests growing to 36k prompt tokens, two
	// thirds of it served from the cache, on gpt-4o-mini.
	mini, _ := PriceFor("gpt-4o-mini")
	u := RunUsage{Requests: 3, Prompt: 36_000, Cached: 24_000, Completion: 1_500}
	if got, want := u.Cost(mini), (12_000*0.15+24_000*0.075+1_500*0.60)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("gpt-4o-mini review = %v, want %v", got, want)
	}
}

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.0000", 0.00198: "$0.0020", 0.5: "$0.5000", 1: "$1.00", 12.346: "$12.35"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %s, want %s", v, got, want)
		}
	}
}
