package text

import (
	"bytes"
	"encoding/json"
)

// JSON is json.Marshal without its HTML escapes: <, > and & stay as they
// are, not \u003c, \u003e and \u0026. What review writes as JSON is never
// HTML, and code is full of them (<-, &&, ->, generics).
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// QuoteJSON quotes s as a JSON string does, <, > and & as they are
// (strconv.Quote differs for some control and non-ASCII characters).
func QuoteJSON(s string) string {
	b, _ := JSON(s) // a string always encodes
	return string(b)
}
