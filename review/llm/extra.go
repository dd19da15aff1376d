package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
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

// keepCredentialsHome returns a copy of hc (nil: a client of its own)
// that sends no credential header (see CredentialHeader) on a redirect to
// a host other than host: net/http drops Authorization and Cookie only on
// a redirect to another domain, never a gateway's Api-Key or X-Api-Key
// header, and names the URL it left, query and all ("?api-key="), in
// Referer.
func keepCredentialsHome(hc *http.Client, host string) *http.Client {
	c := http.Client{}
	if hc != nil {
		c = *hc
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Host, host) {
			req.Header.Del("Referer")
			for k := range req.Header {
				if CredentialHeader(k) {
					req.Header.Del(k)
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// hostOf is the host of a URL, or "" if it does not parse.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
