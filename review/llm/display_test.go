package llm

import (
	"strings"
	"testing"
)

// TestDisplayURL: whatever form a URL takes, no credential in it is shown.
func TestDisplayURL(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://user:SECRET@gw.example:8080/v1", "http://gw.example:8080/v1"},
		{"https://SECRET@gw.example/v1", "https://gw.example/v1"},
		{"https://gw.example/v1?api-key=SECRET&api-version=2024", "https://gw.example/v1"},
		{"https://gw.example/v1?key=SECRET", "https://gw.example/v1"},
		{"https://gw.example/v1?token=SECRET#frag", "https://gw.example/v1"},
		{"https://gw.example/v1?access_token=SECRET", "https://gw.example/v1"},
		{"https://blob.example/v1?sv=1&sig=SECRET", "https://blob.example/v1"},
		{" http://u:SECRET@localhost:11434/v1 ", "http://localhost:11434/v1"},
		{"localhost:11434/v1", "localhost:11434/v1"},
		{"user:SECRET@gw.example/v1", "user:gw.example/v1"},
		{"ftp://u:SECRET@host/v1?api-key=SECRET", "ftp://host/v1"},
		{"gw.example/v1?api-key=SECRET", "gw.example/v1"},
		{"u:SECRET@gw.example", "u:gw.example"},
		{"http://u:SECRET@[::1", "(unparsable URL)"},
	}
	for _, tt := range tests {
		got := DisplayURL(tt.raw)
		if got != tt.want {
			t.Errorf("DisplayURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("DisplayURL(%q) shows a credential: %q", tt.raw, got)
		}
	}
}
