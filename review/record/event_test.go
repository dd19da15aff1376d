package record

import (
	"testing"

	"github.com/reviewdev/review/conversation"
)

// TestEventForms checks that every event is recorded in the form earlier
// versions wrote, and that what they wrote decodes to the same event.
func TestEventForms(t *testing.T) {
	prune := Prune{conversation.PruneEvent{Turn: 2, Reasons: []string{"turns"}, Dropped: []string{"m3"}}}
	for _, c := range []struct {
		ev   Event
		form string
	}{
		{Request{Messages: []Name{{ID: "m1", Layer: conversation.Static}, {ID: "m5", Layer: conversation.Loop, Ref: "abc"}}},
			`{"kind":"request","messages":[{"id":"m1","layer":"static"},{"id":"m5","layer":"loop","ref":"abc"}]}`},
		{Request{Same: 3, Messages: []Name{{ID: "m6", Layer: conversation.Loop}}},
			`{"kind":"request","same":3,"messages":[{"id":"m6","layer":"loop"}]}`},
		{prune, `{"kind":"prune","turn":2,"reasons":["turns"],"before":{"messages":0,"chars":0,"tokens":0},"after":{"messages":0,"chars":0,"tokens":0},"dropped":["m3"]}`},
		{Replan{Turn: 1, Reasons: []string{"context_length"}, Before: 900, After: 400, Units: 2},
			`{"kind":"replan","turn":1,"reasons":["context_length"],"before_tokens":900,"after_tokens":400,"units":2}`},
		{Fallback{Feature: "strict", From: "strict", To: "not strict", Reason: "no <strict>"},
			`{"kind":"fallback","feature":"strict","from":"strict","to":"not strict","reason":"no \u003cstrict\u003e"}`},
		{Stream{Events: 12, Bytes: 3400, FirstByteMS: 85}, `{"kind":"stream","events":12,"bytes":3400,"first_byte_ms":85}`},
		{Final{Reason: "input_budget", Turn: 1, Tokens: 9000, Limit: 8000},
			`{"kind":"final","reason":"input_budget","turn":1,"tokens":9000,"limit_tokens":8000}`},
		{Other{Type: "future", Data: []byte(`{"kind":"future","x":1}`)}, `{"kind":"future","x":1}`},
	} {
		got, err := Encode(c.ev)
		if err != nil || string(got) != c.form {
			t.Errorf("%s event recorded as\n%s (%v)\nwant\n%s", c.ev.Kind(), got, err, c.form)
		}
		back, err := Decode([]byte(c.form))
		if err != nil || back.Kind() != c.ev.Kind() {
			t.Fatalf("%s: decoded %#v, %v", c.form, back, err)
		}
		if again, _ := Encode(back); string(again) != c.form {
			t.Errorf("%s decoded and recorded again as\n%s", c.form, again)
		}
	}
	for _, bad := range []string{`{"turn":1}`, `[1]`, `{"kind":"stream","events":"many"}`} {
		if ev, err := Decode([]byte(bad)); err == nil {
			t.Errorf("%s decoded as %#v", bad, ev)
		}
	}
}

// TestRequestExpands checks that a request event that names only what a
// request adds to the one before is put back whole by loading.
func TestRequestExpands(t *testing.T) {
	a := []Name{{ID: "m1", Layer: conversation.Static}, {ID: "m2", Layer: conversation.Loop}}
	first, _ := Encode(Request{Messages: a})
	second, _ := Encode(Request{Same: 2, Messages: []Name{{ID: "m3", Layer: conversation.Loop, Ref: "r"}}})
	_, prev, _, _ := expandRequest(first, nil, nil)
	full, _, _, _ := expandRequest(second, prev, nil)
	back, err := Decode(full)
	if err != nil || len(back.(Request).Messages) != 3 || back.(Request).Same != 0 {
		t.Errorf("expanded %s: %+v, %v", full, back, err)
	}
}
