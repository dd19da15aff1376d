package llm

import (
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
)

// DefaultWindow is the context window assumed for a model we do not know.
const DefaultWindow = 128000

// PricesAsOf dates the built-in prices. Providers change them; a configured
// price is the way to keep an estimate right after they do.
const PricesAsOf = "2025-12"

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

// Cost is what the given token counts cost at p, in US dollars. Providers
// count cached tokens inside the prompt tokens, so those are priced at the
// cached rate and the rest at the prompt rate. Negative counts are zero and
// cached tokens never exceed the prompt.
func (p Price) Cost(prompt, cached, completion int) float64 {
	prompt = max(prompt, 0)
	cached = min(max(cached, 0), prompt)
	completion = max(completion, 0)
	return (float64(prompt-cached)*p.Prompt + float64(cached)*p.Cached + float64(completion)*p.Completion) / 1e6
}

// FormatUSD renders a cost estimate with enough digits for the cents a small
// review costs: "$0.0123", "$1.23".
func FormatUSD(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Info is what we know of a model: the facts budgets, token counting,
// request building and cost estimates depend on.
type Info struct {
	// Name is the entry of the model table that matched, "" for an
	// unknown model.
	Name string
	// Window is the context window in tokens (DefaultWindow when unknown).
	Window int
	// Encoding is the tiktoken encoding that counts the model's tokens
	// (o200k_base when unknown: the closest to most current models).
	Encoding string
	// Borrowed says Encoding is not the model's own tokenizer (an unknown
	// model, or one of another family): counts with it are estimates of
	// what the server counts.
	Borrowed bool
	// Reasoning marks OpenAI's reasoning models, which take
	// max_completion_tokens and only their default temperature.
	Reasoning bool
	// Price is the list price at PricesAsOf; Priced says whether there is
	// one. Only the model itself or one of its dated snapshots is priced,
	// never a variant ("gpt-4o-mini-search-preview") or a fine-tune.
	Price  Price
	Priced bool
}

// Known reports whether the model table has an entry for the model.
func (i Info) Known() bool { return i.Name != "" }

// entry is one row of the model table.
type entry struct {
	name      string
	window    int
	encoding  string
	reasoning bool
	price     *Price
	// borrowed says encoding is not the model's own tokenizer but the
	// closest tiktoken has: its counts approximate the server's.
	borrowed bool
}

// models is the one table of model facts. A name matches itself and every
// longer name that continues it after a separator ("gpt-4o" matches
// "gpt-4o-2024-08-06" and "gpt-4o-audio-preview", "llama3.1" matches
// "llama3.1:8b"); the longest match wins, so "gpt-4o-mini" is not taken for
// "gpt-4o" nor "gpt-4.1" for "gpt-4".
var models = []entry{
	{name: "gpt-5", window: 400000, encoding: conversation.O200k, reasoning: true, price: &Price{1.25, 0.125, 10}},
	{name: "gpt-5.1", window: 400000, encoding: conversation.O200k, reasoning: true, price: &Price{1.25, 0.125, 10}},
	{name: "gpt-5-mini", window: 400000, encoding: conversation.O200k, reasoning: true, price: &Price{0.25, 0.025, 2}},
	{name: "gpt-5-nano", window: 400000, encoding: conversation.O200k, reasoning: true, price: &Price{0.05, 0.005, 0.40}},
	{name: "gpt-4.5", window: 128000, encoding: conversation.O200k},
	{name: "gpt-4.1", window: 1047576, encoding: conversation.O200k, price: &Price{2, 0.50, 8}},
	{name: "gpt-4.1-mini", window: 1047576, encoding: conversation.O200k, price: &Price{0.40, 0.10, 1.60}},
	{name: "gpt-4.1-nano", window: 1047576, encoding: conversation.O200k, price: &Price{0.10, 0.025, 0.40}},
	{name: "gpt-4o", window: 128000, encoding: conversation.O200k, price: &Price{2.50, 1.25, 10}},
	{name: "gpt-4o-mini", window: 128000, encoding: conversation.O200k, price: &Price{0.15, 0.075, 0.60}},
	{name: "chatgpt-4o", window: 128000, encoding: conversation.O200k},
	{name: "gpt-4-turbo", window: 128000, encoding: conversation.CL100k},
	{name: "gpt-4", window: 8192, encoding: conversation.CL100k},
	{name: "gpt-3.5", window: 16385, encoding: conversation.CL100k},
	{name: "gpt-3.5-turbo", window: 16385, encoding: conversation.CL100k},
	{name: "text-embedding", window: 8192, encoding: conversation.CL100k},
	{name: "davinci-002", window: 16384, encoding: conversation.CL100k},
	{name: "babbage-002", window: 16384, encoding: conversation.CL100k},
	{name: "o1", window: 200000, encoding: conversation.O200k, reasoning: true, price: &Price{15, 7.50, 60}},
	{name: "o3", window: 200000, encoding: conversation.O200k, reasoning: true, price: &Price{2, 0.50, 8}},
	{name: "o3-mini", window: 200000, encoding: conversation.O200k, reasoning: true, price: &Price{1.10, 0.55, 4.40}},
	{name: "o4", window: 200000, encoding: conversation.O200k, reasoning: true},
	{name: "o4-mini", window: 200000, encoding: conversation.O200k, reasoning: true, price: &Price{1.10, 0.275, 4.40}},
	// Both DeepSeek aliases name the same model; DeepSeek bills a cache
	// hit at a tenth of a miss.
	{name: "deepseek-chat", window: 128000, encoding: conversation.O200k, price: &Price{0.28, 0.028, 0.42}, borrowed: true},
	{name: "deepseek-reasoner", window: 128000, encoding: conversation.O200k, price: &Price{0.28, 0.028, 0.42}, borrowed: true},
	{name: "moonshot-v1-8k", window: 8192, encoding: conversation.O200k, borrowed: true},
	{name: "moonshot-v1-32k", window: 32768, encoding: conversation.O200k, borrowed: true},
	{name: "moonshot-v1-128k", window: 131072, encoding: conversation.O200k, borrowed: true},
	{name: "kimi-k2", window: 131072, encoding: conversation.O200k, borrowed: true},
	{name: "llama3.1", window: 131072, encoding: conversation.O200k, borrowed: true},
	{name: "llama3.2", window: 131072, encoding: conversation.O200k, borrowed: true},
	{name: "llama3.3", window: 131072, encoding: conversation.O200k, borrowed: true},
	{name: "qwen2.5-coder", window: 32768, encoding: conversation.O200k, borrowed: true},
	{name: "qwen3", window: 40960, encoding: conversation.O200k, borrowed: true},
	{name: "mistral", window: 32768, encoding: conversation.O200k, borrowed: true},
	{name: "codestral", window: 262144, encoding: conversation.O200k, borrowed: true},
}

// Lookup returns what the model table knows of a model. It accepts the
// names providers and gateways use for the same model: any case, a routing
// prefix ("openai/gpt-4o"), a dated snapshot ("gpt-4o-2024-08-06") or a
// tag ("llama3.1:8b"). An unknown model gets the defaults.
func Lookup(model string) Info {
	m := canonical(model)
	var best *entry
	for i := range models {
		e := &models[i]
		if continues(m, e.name) && (best == nil || len(e.name) > len(best.name)) {
			best = e
		}
	}
	if best == nil {
		return Info{Window: DefaultWindow, Encoding: conversation.O200k, Borrowed: true}
	}
	info := Info{Name: best.name, Window: best.window, Encoding: best.encoding, Reasoning: best.reasoning, Borrowed: best.borrowed}
	if best.price != nil && snapshot(m[len(best.name):]) {
		info.Price, info.Priced = *best.price, true
	}
	return info
}

// PriceFor returns the list price of a known model or one of its dated
// snapshots; a variant, a fine-tune or an unknown model has none.
func PriceFor(model string) (Price, bool) {
	i := Lookup(model)
	return i.Price, i.Priced
}

// canonical is the one normalisation of model names: trimmed, lower case,
// without a gateway's routing prefix.
func canonical(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// continues reports whether m is name or name followed by a separator.
func continues(m, name string) bool {
	if !strings.HasPrefix(m, name) {
		return false
	}
	if len(m) == len(name) {
		return true
	}
	switch m[len(name)] {
	case '-', ':', '.', '@', '_':
		return true
	}
	return false
}

// snapshot reports whether rest, what follows a table name, is empty or a
// dated snapshot: groups of digits, each after a hyphen ("-2024-08-06",
// "-0324").
func snapshot(rest string) bool {
	if rest == "" {
		return true
	}
	if rest[0] != '-' {
		return false
	}
	for _, g := range strings.Split(rest[1:], "-") {
		if !digits(g) {
			return false
		}
	}
	return true
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
