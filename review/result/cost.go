package result

import "github.com/reviewdev/review/review/llm"

// Cost estimates what the run's requests cost at price p, in US dollars.
// When the server reported no prompt tokens at all, our own count stands
// in for them, as it does in the progress line.
func (u RunUsage) Cost(p llm.Price) float64 {
	prompt := u.Prompt
	if prompt <= 0 {
		prompt = u.Own
	}
	return p.Cost(prompt, u.Cached, u.Completion)
}

// EstimateCost estimates what the run cost: at its configured price, else
// at its model's list price. The boolean is false when the model has no known
// price.
func (r *Result) EstimateCost() (float64, bool) {
	if r.Price != nil {
		return r.Usage.Cost(*r.Price), true
	}
	p, ok := llm.PriceFor(r.Model)
	if !ok {
		return 0, false
	}
	return r.Usage.Cost(p), true
}
