package hosttest

import (
	"reflect"
	"testing"
)

// TestCommands holds the oracle to what each GitLab generation is known
// to do with a note: the rows of the table the neutralisation was found
// wanting on, and the forms both skip.
func TestCommands(t *testing.T) {
	tests := []struct {
		body           string
		older, current []string // the commands each runs
	}{
		{"/merge", []string{"merge"}, []string{"merge"}},
		{"note\n\r/merge", []string{"merge"}, []string{"merge"}},
		{"    ```\n/merge\n    ```", []string{"merge"}, []string{"merge"}},
		{"\t```\n/merge\n\t```", []string{"merge"}, []string{"merge"}},
		{"~~~\n/merge\n~~~", []string{"merge"}, nil},
		{"   ```\n/close\n   ```", []string{"close"}, nil},
		{"~~~\n/assign_reviewer @mallory\n~~~", []string{"assign_reviewer"}, nil},
		{"````\n/merge\n````", nil, nil}, // the older one pairs the backticks as inline code
		{"- item\n/merge", []string{"merge"}, nil},
		{"> quote\n/merge", []string{"merge"}, nil},
		{"text\n\n/label ~x\n\nmore", []string{"label"}, []string{"label"}},
		{"/cloſe", []string{"cloſe"}, []string{"cloſe"}},
		{"```\n/merge\n```", nil, nil},
		{"```go\n/merge\n```\n", nil, nil},
		{"a `b\n/merge\nc` d", nil, nil},
		{"> /merge", nil, nil},
		{"   /merge", nil, nil},
		{`\/merge`, nil, nil},
		{"/usr/bin/env", nil, nil},
		{"// comment", nil, nil},
		{"/merge\tnow", nil, nil},
		{"<details>\n/merge\n</details>", nil, nil},
	}
	for _, tt := range tests {
		var older, current []string
		for _, c := range Commands(tt.body) {
			if c.Generation == "older" {
				older = append(older, c.Name)
			} else {
				current = append(current, c.Name)
			}
		}
		if !reflect.DeepEqual(older, tt.older) || !reflect.DeepEqual(current, tt.current) {
			t.Errorf("Commands(%q): older %q, current %q; want %q, %q", tt.body, older, current, tt.older, tt.current)
		}
	}
}
