// Package redacttest makes the texts the secret scanner is measured on:
// minified bundles of the size and shape that made the scan slow, for the
// benchmarks of internal/redact and of the review binary.
package redacttest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SearchKey is the search-only API key the bundles configure their
// search box with, as documentation sites built with DocSearch do: a
// public key of a generic shape, which is not a secret to report.
const SearchKey = "167e7998590aebda7f9fedcf86bc4a55"

// Bundle returns a minified JavaScript bundle of at least size bytes: a
// licence comment, then one line of modules as a minifier writes them,
// full of the words the scanner's rules look for (key, token, secret,
// password, auth, api) in identifiers, object keys and strings, with
// hashes, inline images and a search box's public key. The same size
// gives the same bundle.
func Bundle(size int) string {
	rng := rand.New(rand.NewPCG(uint64(size), 42))
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString("/*! For license information please see main.min.js.LICENSE.txt */\n")
	b.WriteString(`!function(e){var t={};function n(r){if(t[r])return t[r].exports;var o=t[r]={i:r,l:!1,exports:{}};return e[r].call(o.exports,o,o.exports,n),o.l=!0,o.exports}n.m=e,n.c=t,n.d=function(e,t,r){n.o(e,t)||Object.defineProperty(e,t,{enumerable:!0,get:r})},n.p="/dist/",n(n.s=0)}([`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("function(e,t,n){\"use strict\";")
		writeModule(&b, rng, i)
		b.WriteByte('}')
	}
	b.WriteString("]);\n")
	return b.String()
}

// Words a bundle's code is made of: its identifiers and keys.
var (
	idents = []string{"e", "t", "n", "r", "o", "i", "a", "s", "u", "c", "l", "f", "d", "p", "h", "m", "g", "v", "y", "b"}
	keys   = []string{"key", "token", "apiKey", "accessToken", "secret", "password", "auth", "authorization",
		"publicKey", "keyCode", "tokenize", "passive", "keys", "sessionToken", "csrfToken", "client_id",
		"indexName", "appId", "className", "children", "value", "onChange", "placeholder", "href"}
	strs = []string{"Bearer ", "Authorization", "Content-Type", "application/json", "password", "current-password",
		"new-password", "aria-label", "search", "token expired", "Invalid API key", "secret-sauce", "keydown",
		"https://api.example.org/v1/", "X-Api-Key", "x-csrf-token"}
)

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hex   = "0123456789abcdef"
	b64   = alnum + "+/"
)

func pick(rng *rand.Rand, list []string) string { return list[rng.IntN(len(list))] }

func random(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// writeModule writes one module's body: statements of the kinds a
// minified bundle is made of.
func writeModule(b *strings.Builder, rng *rand.Rand, i int) {
	for range 8 + rng.IntN(12) {
		x, y, z := pick(rng, idents), pick(rng, idents), pick(rng, idents)
		switch rng.IntN(14) {
		case 0:
			fmt.Fprintf(b, "var %s=%s.%s||{},%s=%q;", x, y, pick(rng, keys), z, pick(rng, strs))
		case 1:
			fmt.Fprintf(b, "%s.%s=function(%s,%s){return %s[%s.%s]=%s,%s};", x, pick(rng, keys), y, z, x, y, pick(rng, keys), z, x)
		case 2:
			fmt.Fprintf(b, "if(!%s.%s)throw new Error(\"%s: %s\");", x, pick(rng, keys), pick(rng, strs), pick(rng, keys))
		case 3:
			fmt.Fprintf(b, "%s({%s:%q,%s:%s.%s,%s:!0});", x, pick(rng, keys), random(rng, alnum, 6+rng.IntN(10)), pick(rng, keys), y, pick(rng, keys), pick(rng, keys))
		case 4:
			fmt.Fprintf(b, "%s.headers[%q]=%q+%s.%s;", x, "Authorization", "Bearer ", y, pick(rng, keys))
		case 5:
			fmt.Fprintf(b, "var %s=\"data:image/png;base64,%s\";", x, random(rng, b64, 200+rng.IntN(600)))
		case 6:
			fmt.Fprintf(b, "%s.integrity=\"sha384-%s\";", x, random(rng, b64, 64))
		case 7:
			fmt.Fprintf(b, "%s.%s=%q;", x, pick(rng, []string{"etag", "hash", "id", "version", "checksum"}), random(rng, hex, 40))
		case 8:
			fmt.Fprintf(b, "for(var %s=0,%s=%s.length;%s<%s;%s++)%s[%s].%s&&%s.push(%s[%s]);", x, y, z, x, y, x, z, x, pick(rng, keys), y, z, x)
		case 9:
			fmt.Fprintf(b, "%s.addEventListener(\"keydown\",function(%s){27===%s.keyCode&&%s.%s()},{passive:!0});", x, y, y, z, pick(rng, keys))
		case 10:
			fmt.Fprintf(b, "%s.exports={%s:function(){return %s.%s},%s:%d};", x, pick(rng, keys), y, pick(rng, keys), pick(rng, keys), rng.IntN(100000))
		case 11:
			fmt.Fprintf(b, "%s.setAttribute(\"autocomplete\",%q);", x, pick(rng, []string{"current-password", "new-password", "one-time-code"}))
		case 12:
			fmt.Fprintf(b, "var %s=\"#%s\",%s=\"%s-%s-%s\";", x, random(rng, hex, 6), y, random(rng, hex, 8), random(rng, hex, 4), random(rng, hex, 12))
		case 13:
			if i%40 == 0 {
				fmt.Fprintf(b, "docsearch({appId:\"BH4D9OD16A\",apiKey:%q,indexName:\"docs\",inputSelector:\"#search-input\",debug:!1});", SearchKey)
			} else {
				fmt.Fprintf(b, "%s.tokenize=function(%s){return %s.split(/\\s+/)};", x, y, y)
			}
		}
	}
}
