package redact

import "bytes"

// EachPlaceholder calls fn for each placeholder in b, with the rule that
// made it and its four hex digits: what was redacted in a text about to
// leave, counted without the secrets (see package egress).
func EachPlaceholder(b []byte, fn func(rule, id string)) {
	if !bytes.Contains(b, []byte("[secret:")) {
		return
	}
	for _, loc := range placeholderRE().FindAllIndex(b, -1) {
		p := b[loc[0]+len("[secret:") : loc[1]-1] // rule#ffff
		i := bytes.LastIndexByte(p, '#')
		fn(string(p[:i]), string(p[i+1:]))
	}
}
