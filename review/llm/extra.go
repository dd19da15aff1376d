package llm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// withExtra adds the configured extra body fields to an encoded request,
// after ours and in name order, so the body stays the same from run to
// run. A field the request already has is left as we set it: the extras
// are for what a gateway needs beyond the protocol (Ollama's options,
// vLLM's chat_template_kwargs), not for overriding it.
func withExtra(body []byte, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 {
		return body, nil
	}
	var have map[string]json.RawMessage
	if err := json.Unmarshal(body, &have); err != nil {
		return nil, fmt.Errorf("encode model request: %w", err)
	}
	out := append([]byte(nil), body[:len(body)-1]...)
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if _, ok := have[k]; ok {
			continue
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("extra_body field %q cannot be sent as JSON: %v", k, err)
		}
		out = append(append(append(append(out, ','), kb...), ':'), vb...)
	}
	return append(out, '}'), nil
}

// credentialWords mark a header name whose value is a credential.
var credentialWords = []string{"authorization", "auth", "key", "token", "secret", "password", "cookie", "signature", "credential"}

// CredentialHeader reports whether a header's value must never be shown,
// logged or recorded: Authorization, X-Api-Key, Cookie and the like.
func CredentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
