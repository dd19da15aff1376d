package redact

import (
	"encoding/json"
	"strings"

	"github.com/reviewdev/review/internal/text"
)

// RedactJSON is Redact for a text that may be a JSON document, such as a
// tool call's arguments: a secret inside a string value is replaced there,
// and the document stays valid JSON. Redacting the document as plain text
// could cut a value through an escape (DB_PASSWORD=\"…\"), and the call
// would then reach its tool, the store and the next request broken. Each
// string is redacted as the text it decodes to (a value with "\n" in it
// reads as its lines), then the document as a whole, for a secret whose
// name and value are apart (`{"password": "…"}`); a secret that pass finds
// is replaced inside the string that holds it. Text that is not JSON is
// redacted as text. The matches' offsets are within the string they were
// found in. A string that is itself a JSON document (a recorded response's
// tool call arguments) is redacted as one.
func (r *Redactor) RedactJSON(text string) (string, []Match) {
	if r == nil || text == "" {
		return text, nil
	}
	t := strings.TrimSpace(text)
	if t == "" || (t[0] != '{' && t[0] != '[' && t[0] != '"') || !json.Valid([]byte(text)) {
		return r.Redact(text)
	}
	var all []Match
	out := eachString(text, func(v string) string {
		// A string may hold a document of its own: a recorded
		// response's tool call arguments.
		red, ms := r.RedactJSON(v)
		all = append(all, ms...)
		return red
	})
	whole, ms := r.Redact(out)
	if len(ms) == 0 {
		return out, all
	}
	all = append(all, ms...)
	if json.Valid([]byte(whole)) {
		return whole, all
	}
	// The whole pass's secrets, put back inside the strings holding them.
	secrets := make(map[string]string, len(ms))
	for _, m := range ms {
		secrets[out[m.Start:m.End]] = m.Placeholder
	}
	return eachString(out, func(v string) string {
		for s, p := range secrets {
			v = strings.ReplaceAll(v, s, p)
		}
		return v
	}), all
}

// eachString rewrites each string literal of a valid JSON document with
// fn, keys included, and leaves every other byte as it is; a literal fn
// does not change is not re-encoded.
func eachString(doc string, fn func(string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(doc) && doc[end] != '"' {
			if doc[end] == '\\' {
				end++
			}
			end++
		}
		lit := doc[i : end+1]
		var v string
		if err := json.Unmarshal([]byte(lit), &v); err == nil {
			if nv := fn(v); nv != v {
				b.WriteString(doc[last:i])
				b.WriteString(text.QuoteJSON(nv))
				last = end + 1
			}
		}
		i = end
	}
	if last == 0 {
		return doc
	}
	b.WriteString(doc[last:])
	return b.String()
}
