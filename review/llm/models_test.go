package llm

import (
	"math"
	"testing"

	"github.com/reviewdev/review/conversation"
)

func TestLookupWindow(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"gpt-4o-mini", 128000},
		{"gpt-4", 8192},
		{"gpt-4-0613", 8192},
		{"gpt-4-turbo-2024-04-09", 128000},
		{"gpt-4.1-mini", 1047576},
		{"gpt-4.5-preview", 128000},
		{"openai/gpt-5", 400000},
		{"moonshot-v1-32k", 32768},
		{"llama3.1:8b", 131072},
		{"qwen2.5-coder:7b", 32768},
		{"unknown-model", DefaultWindow},
		{"", DefaultWindow},
	} {
		if got := Lookup(tc.model).Window; got != tc.want {
			t.Errorf("Lookup(%q).Window = %d, want %d", tc.model, got, tc.want)
		}
	}
}

func TestLookupEncoding(t *testing.T) {
	for _, tc := range []struct{ model, want string }{
		{"gpt-4o", conversation.O200k},
		{"gpt-4o-mini", conversation.O200k},
		{"openai/gpt-4.1-mini", conversation.O200k},
		{"gpt-5", conversation.O200k},
		{"o3-mini", conversation.O200k},
		{"gpt-4", conversation.CL100k},
		{"gpt-4-turbo", conversation.CL100k},
		{"gpt-3.5-turbo", conversation.CL100k},
		{"llama3.1:8b", conversation.O200k},
		{"", conversation.O200k},
	} {
		if got := Lookup(tc.model).Encoding; got != tc.want {
			t.Errorf("Lookup(%q).Encoding = %s, want %s", tc.model, got, tc.want)
		}
	}
}

func TestLookupReasoning(t *testing.T) {
	for model, want := range map[string]bool{
		"o1": true, "o1-preview": true, "o3-mini-2025-01-31": true, "o4-mini": true,
		"gpt-5": true, "openai/gpt-5-mini": true, "GPT-5.1": true,
		"gpt-4o": false, "gpt-4.1": false, "deepseek-reasoner": false, "llama3.1": false, "": false,
	} {
		if got := Lookup(model).Reasoning; got != want {
			t.Errorf("Lookup(%q).Reasoning = %v, want %v", model, got, want)
		}
	}
}

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
		{"deepseek-chat-0324", Price{Prompt: 0.28, Cached: 0.028, Completion: 0.42}, true},
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

func TestPriceCost(t *testing.T) {
	p := Price{Prompt: 2, Cached: 0.5, Completion: 8}
	tests := []struct {
		name                       string
		prompt, cached, completion int
		want                       float64
	}{
		{"nothing", 0, 0, 0, 0},
		{"prompt only", 1_000_000, 0, 0, 2},
		{"cached inside prompt", 1_000_000, 250_000, 0, 0.75*2 + 0.25*0.5},
		{"all cached", 400_000, 400_000, 0, 0.2},
		{"completion", 10, 0, 500_000, 4 + 10*2/1e6},
		{"cached above prompt is capped", 100, 1000, 0, 100 * 0.5 / 1e6},
		{"negative counts are zero", -5, -1, -7, 0},
	}
	for _, tt := range tests {
		if got := p.Cost(tt.prompt, tt.cached, tt.completion); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Cost = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.0000", 0.00198: "$0.0020", 0.5: "$0.5000", 1: "$1.00", 12.346: "$12.35"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %s, want %s", v, got, want)
		}
	}
}
