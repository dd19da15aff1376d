package redact

import (
	"strings"

	"github.com/reviewdev/review/internal/lazy"
)

// Text that looks random but is public, which no rule's finding may take
// for a secret: certificates and other public PEM blocks (a CA bundle in
// test data, a server's certificate in documentation), and the h1: hashes
// of Go modules in go.sum and vendor.sum, whose module paths hold "auth"
// or "key" often enough (golang.org/x/oauth2) for gitleaks' generic rule
// to take the hash for a key.

// publicPEM matches the BEGIN and END lines of PEM blocks that hold no
// secret: certificates, requests, revocation lists, public keys,
// signatures and parameters. Group 1 is BEGIN or END, group 2 the label.
var publicPEM = lazyRE(`-----(BEGIN|END) ((?:X509 |TRUSTED |NEW )?CERTIFICATE(?: REQUEST)?|X509 CRL|` +
	`(?:RSA |EC |SSH2 )?PUBLIC KEY|PGP PUBLIC KEY BLOCK|PGP SIGNATURE|PKCS7|CMS|(?:DH|EC|DSA) PARAMETERS)-----`)

// moduleHash matches an h1: hash of a Go module as go.sum writes it: the
// SHA-256 of its files in base64.
var moduleHash = lazy.Regexp(`^(?:h1:)?[A-Za-z0-9+/]{43}=$`)

// publicSpans returns the spans of text that hold public PEM blocks: each
// from its BEGIN line to its END line; a block whose END line is not in
// the text through its lines of base64, and an END line without its BEGIN
// from the lines of base64 before it (a page of a certificate file).
func publicSpans(text string) [][2]int {
	if !strings.Contains(text, "-----BEGIN ") && !strings.Contains(text, "-----END ") {
		return nil
	}
	var out [][2]int
	ms := publicPEM().FindAllStringSubmatchIndex(text, -1)
	for i := 0; i < len(ms); i++ {
		m := ms[i]
		label := text[m[4]:m[5]]
		if text[m[2]:m[3]] == "END" {
			start := m[0]
			if n := len(out); n == 0 || out[n-1][1] <= m[0] {
				start = base64Before(text, m[0])
			}
			out = append(out, [2]int{start, m[1]})
			continue
		}
		end := -1
		if i+1 < len(ms) && text[ms[i+1][2]:ms[i+1][3]] == "END" && text[ms[i+1][4]:ms[i+1][5]] == label {
			end = ms[i+1][1]
			i++
		} else {
			end = base64After(text, m[1])
		}
		out = append(out, [2]int{m[0], end})
	}
	return out
}

// base64After returns the end of the lines of base64 (and PEM headers)
// that follow offset at, the end of a BEGIN line.
func base64After(text string, at int) int {
	end := at
	for end < len(text) {
		rest := text[end:]
		if !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
			break
		}
		start := end + strings.IndexByte(rest, '\n') + 1
		next := strings.IndexByte(text[start:], '\n')
		if next < 0 {
			next = len(text) - start
		}
		line := layout(strings.TrimSuffix(text[start:start+next], "\r"))
		if line == "" || !(isBase64(line) || pemHeader().MatchString(line)) {
			break
		}
		end = start + next
	}
	return end
}

// base64Before returns the start of the lines of base64 that precede
// offset at, the start of an END line (after its indentation, a gutter or
// a diff's marker, which layout strips).
func base64Before(text string, at int) int {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	for start > 0 {
		prev := strings.LastIndexByte(text[:start-1], '\n') + 1
		line := layout(strings.TrimSuffix(text[prev:start-1], "\r"))
		if line == "" || !isBase64(line) {
			break
		}
		start = prev
	}
	return start
}

// public reports whether the secret text[s:e] is public text: inside a
// public PEM block, or a Go module's hash.
func public(text string, s, e int, spans [][2]int) bool {
	for _, sp := range spans {
		if sp[0] <= s && e <= sp[1] {
			return true
		}
	}
	secret := text[s:e]
	if !moduleHash().MatchString(secret) {
		return false
	}
	return strings.HasPrefix(secret, "h1:") || strings.HasSuffix(text[:s], "h1:")
}
