package seam

import "testing"

func TestParseCommand(t *testing.T) {
	tests := []struct {
		body string
		ok   bool
		want Command
	}{
		{"/review", true, Command{Name: "review"}},
		{"  \n/review  \nthanks", true, Command{Name: "review"}},
		{"/review ask why is this a race?", true, Command{Name: "ask", Question: "why is this a race?"}},
		{"/review ask\nwhat about\ncallers?", true, Command{Name: "ask", Question: "what about\ncallers?"}},
		{"/review help", true, Command{Name: "help"}},
		{"/review Dismiss", true, Command{Name: "dismiss"}},
		{"/review merge", true, Command{Name: "help", Unknown: "merge"}},
		{"/reviewer", false, Command{}},
		{"please /review", false, Command{}},
		{"", false, Command{}},
	}
	for _, tt := range tests {
		got, ok := ParseCommand(tt.body)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
	for a, want := range map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true, "CONTRIBUTOR": false, "FIRST_TIME_CONTRIBUTOR": false, "NONE": false, "": false} {
		if Trusted(a) != want {
			t.Errorf("Trusted(%q) = %v", a, !want)
		}
	}
}
