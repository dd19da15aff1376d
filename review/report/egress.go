package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/record"
)

// WriteEgress writes where a recorded run sent what, for a person: each
// destination (host and path) with its requests and the bytes of their
// bodies each way, then the redactions what it sent carried, by rule and
// count. A run recorded before egress records says so.
func WriteEgress(w io.Writer, r *record.Replay) error {
	var b strings.Builder
	run := r.Run
	fmt.Fprintf(&b, "Run %s · %s · model %s\n", run.ID, run.Status, run.Model)
	e := r.Egress
	if e == nil {
		b.WriteString("The run records no egress: it was recorded by a version before egress records.\n")
		_, err := io.WriteString(w, text.Safe(b.String()))
		return err
	}
	var sent, received int64
	requests := 0
	for _, d := range e.Destinations {
		sent += d.Sent
		received += d.Received
		requests += d.Requests
	}
	fmt.Fprintf(&b, "Egress: %s to %s (%s); %s sent, %s received (bytes of the bodies).\n",
		text.Plural(requests, "request"), text.Plural(len(e.Hosts()), "host"), text.Plural(len(e.Destinations), "destination"),
		bytesOf(sent), bytesOf(received))
	if len(e.Destinations) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  host\tpath\trequests\tfailed\tsent\treceived")
		for _, d := range e.Destinations {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", d.Host, d.Path, text.Number(d.Requests), text.Number(d.Failed), bytesOf(d.Sent), bytesOf(d.Received))
		}
		tw.Flush()
	}
	if len(e.Redactions) == 0 {
		b.WriteString("Redactions: nothing the run sent carried a redaction.\n")
	} else {
		b.WriteString("Redactions in what was sent (by rule; the values never leave):\n")
		for _, x := range e.Redactions {
			fmt.Fprintf(&b, "  %s: %s replaced by placeholders, in %s\n", x.Rule, text.Plural(x.Secrets, "secret"), text.Plural(x.Requests, "request"))
		}
	}
	_, err := io.WriteString(w, text.Safe(b.String()))
	return err
}

// WriteEgressJSON writes a recorded run's egress as JSON:
// {"run": id, "egress": {"destinations": [...], "redactions": [...]}},
// egress null for a run recorded before egress records.
func WriteEgressJSON(w io.Writer, r *record.Replay) error {
	data, err := json.MarshalIndent(struct {
		Run    string         `json:"run"`
		Egress *egress.Record `json:"egress"`
	}{r.Run.ID, r.Egress}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(safeJSON(append(data, '\n')))
	return err
}

// bytesOf writes n bytes exactly, for an audit: "12,345 B".
func bytesOf(n int64) string { return text.Number(int(n)) + " B" }
