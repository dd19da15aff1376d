package seam

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
)

// FuzzNeutralizeBitbucket holds Neutralize to Bitbucket Cloud's mention
// rule (hosttest.BitbucketMentions: a nickname, or an account ID in
// braces, after "@"): no text the model writes notifies anyone there once
// neutralised, alone or after an odd backtick.
func FuzzNeutralizeBitbucket(f *testing.F) {
	for _, s := range []string{"cc @all", "@{557058:abc}", "`@{x}", "@{a b}", "(@org/team)", "[@x] @y", "**@all**",
		"@_x", "@-x", "a `b\n@{x}` c", "@all's", "\\\\@all", "@{`x`}", "ask @alice.", "&#64;bob", "&#64bob", "_x_@{y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		for _, around := range []string{"%s", "a ` b\n%s\n` c", "- item\n%s", "> %s", "x`%s`y"} {
			page := strings.Replace(around, "%s", out, 1)
			if m := hosttest.BitbucketMentions(page); len(m) > 0 {
				t.Fatalf("Bitbucket notifies %q for %q (from %q)", m, page, s)
			}
		}
	})
}
