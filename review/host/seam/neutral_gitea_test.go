package seam

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
)

// FuzzNeutralizeGitea holds Neutralize to Gitea's and Forgejo's mention
// rule (hosttest.GiteaMentions, ported from Gitea's source): no text the
// model writes notifies anyone there once neutralised, alone or after an
// odd backtick. Gitea has no quick actions to hold it to.
func FuzzNeutralizeGitea(f *testing.F) {
	for _, s := range []string{"cc @all", `\@all`, "`@all", "``@all``", "(@org/team)", "[@x] @y", "**@all**",
		"@_x", "@-x", "@.x", "a `b\n@all` c", "@all's", "\\\\@all", "@all`", "ask @alice."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		for _, around := range []string{"%s", "a ` b\n%s\n` c", "- item\n%s", "> %s", "x`%s`y"} {
			page := strings.Replace(around, "%s", out, 1)
			if m := hosttest.GiteaMentions(page); len(m) > 0 {
				t.Fatalf("Gitea notifies %q for %q (from %q)", m, page, s)
			}
		}
	})
}
