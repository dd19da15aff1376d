package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/result"
)

// partialResult is a review that a cap cut short: 25 files not reviewed,
// one of them only in part, one with a name that could break a format.
func partialResult() *result.Result {
	r := hostileResult()
	r.Stopped = "stopped before a request that would pass --max-cost: $0.90 spent"
	for i := range 24 {
		r.NotReviewed = append(r.NotReviewed, result.NotReviewed{Left: diffctx.Left{Path: fmt.Sprintf("pkg/f%02d.go", i), Hunks: 2, All: 2}, Reason: result.ReasonMaxUnits})
	}
	r.NotReviewed[3].Hunks = 1
	r.NotReviewed = append(r.NotReviewed, result.NotReviewed{Left: diffctx.Left{Path: "odd`dir/x,y:z.go", Hunks: 1, All: 1}, Reason: result.ReasonMaxUnits})
	return r
}

// TestNotReviewedInEveryFormat checks that every result format says a
// review was partial and which files it left out.
func TestNotReviewedInEveryFormat(t *testing.T) {
	r := partialResult()
	out := map[string]string{}
	for _, f := range registry {
		if !f.Writes(Result) {
			continue
		}
		var b bytes.Buffer
		if err := f.WriteResult(&b, r, "v1"); err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b.String()
	}
	// Markdown names every file, the one partly reviewed with its hunks.
	md := out["markdown"]
	for _, want := range []string{
		"**Partial review: 25 files were not reviewed (past --max-units; stopped before a request that would pass --max-cost: $0.90 spent); they are listed below.**",
		"## Not reviewed (25 files)",
		"- `pkg/f03.go` (1 of 2 hunks)\n",
		"- `pkg/f23.go`\n",
		"- ``odd`dir/x,y:z.go``\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// JSON lists them all, with reasons.
	var js struct {
		NotReviewed []result.NotReviewed `json:"not_reviewed"`
		Stopped     string               `json:"stopped"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.NotReviewed) != 25 || js.NotReviewed[3].Hunks != 1 || js.NotReviewed[3].All != 2 || js.NotReviewed[0].Reason != "max_units" || js.Stopped == "" {
		t.Errorf("json: %+v", js)
	}
	// GitHub: one warning on the run, escaped, that names the first files.
	gh := out["github"]
	if !strings.Contains(gh, "::warning title=review%3A partial review::25 files not reviewed (past --max-units; ") ||
		!strings.Contains(gh, "pkg/f03.go (1 of 2 hunks)") || !strings.Contains(gh, "and 5 more (every file is listed in the json output)") {
		t.Errorf("github output lacks the warning:\n%s", gh)
	}
	// rdjson: an INFO diagnostic on the first file.
	if !strings.Contains(out["rdjson"], `"code": {
        "value": "not-reviewed"
      }`) || !strings.Contains(out["rdjson"], `"path": "pkg/f00.go"`) {
		t.Errorf("rdjson lacks the note:\n%s", out["rdjson"])
	}
	// SARIF: a notification locating every file, valid against the schema.
	var sarif struct {
		Runs []struct {
			Invocations []struct {
				Notes []struct {
					Level     string            `json:"level"`
					Message   sarifText         `json:"message"`
					Locations []json.RawMessage `json:"locations"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out["sarif"]), &sarif); err != nil {
		t.Fatal(err)
	}
	if inv := sarif.Runs[0].Invocations; len(inv) != 1 || len(inv[0].Notes) != 1 || len(inv[0].Notes[0].Locations) != 25 ||
		!strings.HasPrefix(inv[0].Notes[0].Message.Text, "review: 25 files not reviewed") {
		t.Errorf("sarif invocations: %+v", inv)
	}
	raw, err := os.ReadFile(sarifSchemaPath(t))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, compileSchema(t, "sarif-schema-2.1.0.json", raw), []byte(out["sarif"]))

	// A whole review says nothing of the kind.
	whole := hostileResult()
	for _, f := range registry {
		if !f.Writes(Result) {
			continue
		}
		var b bytes.Buffer
		if err := f.WriteResult(&b, whole, "v1"); err != nil {
			t.Fatal(err)
		}
		if s := b.String(); strings.Contains(s, "not reviewed") || strings.Contains(s, "not-reviewed") || strings.Contains(s, "invocations") {
			t.Errorf("%s: a whole review mentions files not reviewed:\n%s", f.Name, s)
		}
	}
}

// TestPartialOneFile: the Markdown says "1 file was", not "1 file were".
func TestPartialOneFile(t *testing.T) {
	r := partialResult()
	r.NotReviewed = r.NotReviewed[:1]
	var b bytes.Buffer
	f, _ := Lookup("markdown", Result)
	if err := f.WriteResult(&b, r, "v1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Partial review: 1 file was not reviewed (") || !strings.Contains(b.String(), "; it is listed below.**") {
		t.Errorf("the partial review's line is not singular:\n%s", b.String())
	}
}
