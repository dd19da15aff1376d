package glob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{"vendor"}, "vendor/a/b.go", true},
		{[]string{"vendor/**"}, "vendor/a/b.go", true},
		{[]string{"vendor/"}, "vendor/a/b.go", true},
		{[]string{"/vendor"}, "vendor/a/b.go", true},
		{[]string{"node_modules"}, "web/node_modules/x/index.js", true},
		{[]string{"*.min.js"}, "web/dist/app.min.js", true},
		{[]string{"*.min.js"}, "web/dist/app.js", false},
		{[]string{"docs/*.md"}, "docs/a.md", true},
		{[]string{"docs/*.md"}, "x/docs/a.md", false},
		{[]string{"**/gen/**"}, "a/b/gen/c.go", true},
		{[]string{"[bad"}, "[bad", false},
		{[]string{""}, "a", false},
		{nil, "a", false},
	}
	for _, tt := range tests {
		if got := Match(tt.globs, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.globs, tt.path, got, tt.want)
		}
	}
}
