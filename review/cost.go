package review

import (
	"fmt"
	"strings"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	// Prompt is the price of an input token not served from the
	// provider's prompt cache.
	Prompt float64 `json:"prompt" yaml:"prompt"`
	// Cached is the price of an input token served from the cache.
	Cached float64 `json:"cached" yaml:"cached"`
	// Completion is the price of an output token, reasoning included.
	Completion float64 `json:"completion" yaml:"completion"`
}

// PricesAsOf dates the built-in prices. Providers change them; a configured
// price is the way to keep an estimate right after they do.
const PricesAsOf = "2025-12"

// listPrice returns the published list price of a model by its canonical
// name, per million tokens, at PricesAsOf. Batch, flex and regional prices
// are not list prices and are left to configuration.
func listPrice(name string) (Price, bool) {
	switch name {
	case "gpt-5", "gpt-5.1":
		return Price{Prompt: 1.25, Cached: 0.125, Completion: 10}, true
	case "gpt-5-mini":
		return Price{Prompt: 0.25, Cached: 0.025, Completion: 2}, true
	case "gpt-5-nano":
		return Price{Prompt: 0.05, Cached: 0.005, Completion: 0.40}, true
	case "gpt-4.1":
		return Price{Prompt: 2, Cached: 0.50, Completion: 8}, true
	case "gpt-4.1-mini":
		return Price{Prompt: 0.40, Cached: 0.10, Completion: 1.60}, true
	case "gpt-4.1-nano":
		return Price{Prompt: 0.10, Cached: 0.025, Completion: 0.40}, true
	case "gpt-4o":
		return Price{Prompt: 2.50, Cached: 1.25, Completion: 10}, true
	case "gpt-4o-mini":
		return Price{Prompt: 0.15, Cached: 0.075, Completion: 0.60}, true
	case "o1":
		return Price{Prompt: 15, Cached: 7.50, Completion: 60}, true
	case "o3":
		return Price{Prompt: 2, Cached: 0.50, Completion: 8}, true
	case "o3-mini":
		return Price{Prompt: 1.10, Cached: 0.55, Completion: 4.40}, true
	case "o4-mini":
		return Price{Prompt: 1.10, Cached: 0.275, Completion: 4.40}, true
	case "deepseek-chat", "deepseek-reasoner":
		// Both aliases name the same model; DeepSeek bills a cache hit
		// at a tenth of a miss.
		return Price{Prompt: 0.28, Cached: 0.028, Completion: 0.42}, true
	}
	return Price{}, false
}

// PriceFor returns the list price of a known model. It accepts the names
// providers and gateways use for the same model: any case, a dated snapshot
// ("gpt-4o-2024-08-06", "deepseek-chat-0324") and a routing prefix
// ("openai/gpt-4o"). A fine-tuned or unknown model has no price.
func PriceFor(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if p, ok := listPrice(m); ok {
		return p, true
	}
	// A snapshot is the name followed by groups of digits. Dropping the
	// groups one at a time from the end finds the longest known name, so
	// "gpt-4o-mini-2024-07-18" is priced as gpt-4o-mini, not gpt-4o, and
	// "gpt-5-2025-08-07" stops at gpt-5 before the digits of its name.
	parts := strings.Split(m, "-")
	for i := len(parts) - 1; i > 0 && digits(parts[i]); i-- {
		if p, ok := listPrice(strings.Join(parts[:i], "-")); ok {
			return p, true
		}
	}
	return Price{}, false
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Cost estimates what the run's requests cost at price p, in US dollars.
// Providers count cached tokens inside the prompt tokens, so those are
// priced at the cached rate and the rest at the prompt rate. When the
// server reported no prompt tokens at all, our own count stands in for
// them, as it does in the progress line.
func (u RunUsage) Cost(p Price) float64 {
	prompt, cached := u.Prompt, u.Cached
	if prompt <= 0 {
		prompt = max(u.Own, 0)
	}
	cached = min(max(cached, 0), prompt)
	completion := max(u.Completion, 0)
	return (float64(prompt-cached)*p.Prompt + float64(cached)*p.Cached + float64(completion)*p.Completion) / 1e6
}

// EstimateCost estimates what the run cost: at its configured price, else
// at its model's list price. The boolean is false when the model has no
// known price.
func (r *Result) EstimateCost() (float64, bool) {
	if r.Price != nil {
		return r.Usage.Cost(*r.Price), true
	}
	p, ok := PriceFor(r.Model)
	if !ok {
		return 0, false
	}
	return r.Usage.Cost(p), true
}

// FormatUSD renders an estimate with enough digits for the cents a small
// review costs: "$0.0123", "$1.23".
func FormatUSD(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}
