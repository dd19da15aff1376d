package result

import (
	"math"
	"testing"

	"github.com/reviewdev/review/review/llm"
)

func TestCost(t *testing.T) {
	p := llm.Price{Prompt: 2, Cached: 0.5, Completion: 8}
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
	mini, _ := llm.PriceFor("gpt-4o-mini")
	u := RunUsage{Requests: 3, Prompt: 36_000, Cached: 24_000, Completion: 1_500}
	if got, want := u.Cost(mini), (12_000*0.15+24_000*0.075+1_500*0.60)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("gpt-4o-mini review = %v, want %v", got, want)
	}
}
