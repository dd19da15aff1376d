package report

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/toolmem"
)

func TestWriteEgress(t *testing.T) {
	r := &record.Replay{Run: toolmem.Run{ID: "20260101-000000-abcdef", Status: "complete", Model: "m"}}
	var b strings.Builder
	if err := WriteEgress(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "The run records no egress: it was recorded by a version before egress records.") {
		t.Errorf("a run without egress:\n%s", b.String())
	}
	r.Egress = &egress.Record{Destinations: []egress.Destination{
		{Host: "api.openai.com", Path: "/v1/chat/completions", Requests: 3, Sent: 123456, Received: 789},
		{Host: "api.github.com", Path: "/repos/o/r/pulls/7/reviews", Requests: 1, Failed: 1, Sent: 10},
	}, Redactions: []egress.Redaction{{Rule: "github-pat", Secrets: 2, Requests: 3, IDs: []string{"1a2b", "3c4d"}}}}
	b.Reset()
	if err := WriteEgress(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Egress: 4 requests to 2 hosts (2 destinations); 123,466 B sent, 789 B received (bytes of the bodies).\n",
		"  host            path                        requests  failed  sent       received\n",
		"  api.openai.com  /v1/chat/completions        3         0       123,456 B  789 B\n",
		"  api.github.com  /repos/o/r/pulls/7/reviews  1         1       10 B       0 B\n",
		"  github-pat: 2 secrets replaced by placeholders, in 3 requests\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "1a2b") {
		t.Error("a placeholder's digits are shown")
	}
	b.Reset()
	r.Egress.Redactions[0].IDs = nil // as Load leaves them
	if err := WriteEgressJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"rule": "github-pat",`) || !strings.Contains(b.String(), `"run": "20260101-000000-abcdef"`) {
		t.Errorf("JSON:\n%s", b.String())
	}
}
