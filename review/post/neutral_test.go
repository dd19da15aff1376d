package post

import (
	"strings"
	"testing"
)

// TestNeutralize holds that model text posted with the bot's token does
// nothing but read: no GitLab quick action, no raw HTML, no javascript:
// link, no mention, no copy of the review's markers; code stays as written.
func TestNeutralize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/merge", `\/merge`},
		{"  /close", `  \/close`},
		{"/assign_reviewer @mallory", "\\/assign_reviewer `@mallory`"},
		{"> /approve", `> \/approve`},
		{"fine\n/label ~security\n", "fine\n\\/label ~security\n"},
		{"a path /usr/bin in prose", "a path /usr/bin in prose"},
		{"</details>", "&lt;/details>"},
		{`<img src=x onerror=alert(1)>`, `&lt;img src=x onerror=alert(1)>`},
		{"<!-- review:run=1 head=abc -->", "&lt;!-- review:run=1 head=abc -->"},
		{"[evil](javascript:alert(1))", `[evil\]\(javascript:alert(1))`},
		{"[evil]( JavaScript:alert(1))", `[evil\]\( JavaScript:alert(1))`},
		{"[ok](https://example.com/x)", "[ok](https://example.com/x)"},
		{"[x]: javascript:alert(1)", `\[x]: javascript:alert(1)`},
		{"cc @all and @team-a", "cc `@all` and `@team-a`"},
		{"mail a@b.example", "mail a@b.example"},
		{"`@all` and `</x>` in code", "`@all` and `</x>` in code"},
		{"```\n/merge\n<b>@all</b>\n```\n/close", "```\n/merge\n<b>@all</b>\n```\n\\/close"},
		{"n < 0", "n &lt; 0"},
	}
	for _, tt := range tests {
		if got := Neutralize(tt.in); got != tt.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzNeutralize holds the promises on any text: outside code, no line
// starts with "/" and no "<" is left.
func FuzzNeutralize(f *testing.F) {
	for _, s := range []string{"/merge", "```\n/x\n```\n/y", "<b>", "@all", "[a](javascript:x)", "> /close"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		if strings.Contains(s, "`") || strings.Contains(s, "~~~") {
			return // code may keep both
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t>"), "/") {
				t.Fatalf("a line starts with /: %q (from %q)", line, s)
			}
		}
		if strings.Contains(out, "<") {
			t.Fatalf("a < is left: %q (from %q)", out, s)
		}
	})
}
