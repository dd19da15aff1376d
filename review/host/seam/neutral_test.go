package seam

import (
	"strings"
	"testing"

	posttest "github.com/reviewdev/review/review/host/hosttest"
)

// TestNeutralize holds that model text posted with the bot's token does
// nothing but read: no GitLab quick action, no raw HTML, no javascript:
// link, no mention, no copy of the review's markers; code stays as written.
func TestNeutralize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/merge", `\/merge`},
		{"  /close", `  \/close`},
		{"/assign_reviewer @mallory", "\\/assign_reviewer `@\u2060mallory`"},
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
		{"cc @all and @team-a", "cc `@\u2060all` and `@\u2060team-a`"},
		{"see pkg/@types or \\@all", "see pkg/`@\u2060types` or \\`@\u2060all`"},
		{"&#64;all &colon; &lt;", "&amp;#64;all &amp;colon; &lt;"},
		// HTML resolves a numeric reference without its ";".
		{"&#64all &#x40;x &#X40y", "&amp;#64all &amp;#x40;x &amp;#X40y"},
		{"[x](javascript&#58;alert(1))", "[x](javascript&amp;#58;alert(1))"},
		{"mail a@b.example", "mail a@b.example"},
		{"`@all` and `</x>` in code", "`@\u2060all` and `</x>` in code"},
		{"```\n/merge\n<b>@all</b>\n```\n/close", "    /merge\n    <b>@all</b>\n\\/close"},
		{"```go\n// a comment\n<b>@all</b>\n```\n/close", "```go\n// a comment\n<b>@all</b>\n```\n\\/close"},
		// GitLab's grammar, not ours: the rows it ran.
		{"note\n\r/merge", "note\n\\/merge"},
		{"    ```\n/merge\n    ```", "    ```\n\\/merge\n    ```"}, // not a fence: an indented line, then a paragraph
		{"~~~\n/merge\n~~~", "    /merge"},
		{"   ```\n/close\n   ```", "    /close"},
		{"~~~\n/assign_reviewer @mallory\n~~~", "    /assign_reviewer @mallory"},
		{"text\n```\n/merge\n```", "text\n\n    /merge"},
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

// ranSeeds are texts a model steered by a change might write, each of
// which GitLab runs as it is: every form it was seen to run, and forms
// around them.
var ranSeeds = []string{
	"/merge", "note\n\r/merge", "    ```\n/merge\n    ```", "\t```\n/merge\n\t```",
	"~~~\n/merge\n~~~", "   ```\n/close\n   ```", "~~~\n/assign_reviewer @mallory\n~~~",
	"- item\n/merge", "> a\n/approve", "a ` b\n```js\nconst s = `x\n/merge now\n```",
	"/cloſe", "/aßign_reviewer @m", "x\r\n/merge\r\n",
}

// skippedSeeds are texts both generations skip as they are, kept as seeds
// for what neutralising them must not undo.
var skippedSeeds = []string{
	"````\n/merge\n```\n````", "a ` b\n```\n/merge\n```", "<details>\n/merge\n</details>",
	">>>\n/merge\n>>>", "`\n/merge\n`", "```suggestion:-0+0\n/merge\n```",
}

// FuzzNeutralizeGitLab holds Neutralize to GitLab's own grammar in both
// of its generations (posttest.Commands): no text the model writes runs a
// quick action once neutralised, alone or wherever a note puts it: after
// an odd backtick, in a list item, after a code block left open.
func FuzzNeutralizeGitLab(f *testing.F) {
	for _, s := range append(ranSeeds, skippedSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		for _, around := range []string{"%s", "a ` b\n%s\n` c", "- item\n%s", "**x**\n\n%s\n\n---", "```\n%s"} {
			note := strings.Replace(around, "%s", out, 1)
			if cmds := posttest.Commands(note); len(cmds) > 0 {
				t.Fatalf("GitLab runs %+v in %q (from %q)", cmds, note, s)
			}
		}
	})
}

// TestNeutralizeGitLab holds that each of ranSeeds runs a quick action
// before it is neutralised, so the oracle is seen to catch what it is
// there for, and none after.
func TestNeutralizeGitLab(t *testing.T) {
	for _, s := range ranSeeds {
		if len(posttest.Commands(s)) == 0 {
			t.Errorf("the oracle runs nothing in %q", s)
		}
		if cmds := posttest.Commands(Neutralize(s)); len(cmds) > 0 {
			t.Errorf("Neutralize(%q) = %q: GitLab runs %+v", s, Neutralize(s), cmds)
		}
	}
}

// FuzzNeutralizeGitHub holds Neutralize to GitHub's published mention
// filter (posttest.Mentions): no text the model writes notifies anyone
// once neutralised, alone or after an odd backtick or a backslash.
func FuzzNeutralizeGitHub(f *testing.F) {
	for _, s := range []string{"cc @all", `\@all`, "`@all", "``@all``", "pkg/@types", "&#64;all", "&amp;#64;all",
		"**@all**", "@org/team", "a `b\n@all` c", "[@x](javascript:1) @y", "\\\\@all", "@all`", "~~~~~@0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		for _, around := range []string{"%s", "a ` b\n%s\n` c", "- item\n%s", "> %s", "x`%s`y"} {
			page := strings.Replace(around, "%s", out, 1)
			if m := posttest.Mentions(page); len(m) > 0 {
				t.Fatalf("GitHub notifies %q for %q (from %q)", m, page, s)
			}
		}
	})
}
