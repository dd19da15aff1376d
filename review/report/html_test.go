package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/toolmem"
)

// hostileReplay is a one-step run whose request carries content, whose
// response is resp, and whose one stored output is out.
func hostileReplay(content string, resp []byte, out string) HTMLReplay {
	msg, _ := json.Marshal(content)
	req := `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":` + string(msg) + `}],"tools":[]}`
	ev := `{"kind":"request","messages":[{"id":"m1","layer":"static"},{"id":"m2","layer":"static"}]}`
	r := &record.Replay{
		Run: toolmem.Run{ID: "run-1", Model: "gpt-4o", Status: "complete", Started: time.Unix(0, 0)},
		Steps: []record.Step{{N: 1, Turn: 1, Request: json.RawMessage(req), Response: resp,
			Events: []json.RawMessage{json.RawMessage(ev), json.RawMessage(`{"kind":"prune","turn":2,"dropped":["m9"]}`)}}},
	}
	c, _ := conversation.NewCounter("", conversation.Estimate)
	return HTMLReplay{Replay: r, Counter: c,
		Outputs: []record.StoredOutput{{Output: toolmem.Output{Ref: "abcdefghij", Step: 1, Tool: "read_file_hunk", Bytes: len(out)}, Data: []byte(out), Whole: true}}}
}

// pageJSON returns the data a page embeds.
func pageJSON(t testing.TB, page string) pageData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no data block in the page")
	}
	var d pageData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data block is not JSON: %v", err)
	}
	return d
}

// checkInert fails unless page holds exactly its own two script elements,
// no other element the recorded text could have opened, and a policy that
// lets only its own script run.
func checkInert(t testing.TB, page string) {
	t.Helper()
	low := strings.ToLower(page)
	if n := strings.Count(low, "<script"); n != 2 {
		t.Fatalf("the page has %d script tags, want its own 2", n)
	}
	for _, tag := range []string{"<img", "<iframe", "<svg", "<a ", "<link", "<object", "<embed", "<base"} {
		if strings.Contains(low, tag) {
			t.Fatalf("the page holds %q", tag)
		}
	}
	h := sha256.Sum256([]byte(pageScript))
	csp := regexp.MustCompile(`Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if csp == nil || !strings.HasSuffix(html.UnescapeString(csp[1]), "; script-src 'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'") {
		t.Fatalf("the policy does not name the hash of the page's script")
	}
}

func TestHTMLEscapesAndMarksPrunes(t *testing.T) {
	evil := `</script><script>window.__pwned=1</script><img src=x onerror="alert(1)"><!--`
	h := hostileReplay("diff: "+evil, []byte(`{"choices":[{"message":{"content":"`+strings.ReplaceAll(evil, `"`, `\"`)+`","tool_calls":[{"id":"c1","function":{"name":"submit_review","arguments":"{\"findings\":[{\"path\":\"a.go\",\"line\":3,\"severity\":\"high\",\"title\":\"<script>x()</script>\",\"body\":\"b\"}]}"}}]},"finish_reason":"tool_calls"}]}`), "out "+evil)
	var b bytes.Buffer
	if err := WriteHTML(&b, h); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkInert(t, page)
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"?(https?:)?//`).MatchString(page) {
		t.Errorf("the page names a URL to load")
	}
	d := pageJSON(t, page)
	if len(d.Steps) != 1 || len(d.Steps[0].Prunes) != 1 || len(d.Steps[0].Msgs) != 2 {
		t.Fatalf("steps %+v; want one step, its prune event and its 2 messages", d.Steps)
	}
	if d.Texts[d.Steps[0].Msgs[1].Text] != "diff: "+evil || d.Steps[0].Resp.Text != evil || d.Outputs[0].Text != "out "+evil {
		t.Errorf("the recorded text is not carried as it was: %q", d.Texts)
	}
	if len(d.Findings) != 1 || d.Findings[0].Step != 1 || d.Findings[0].Title != "<script>x()</script>" {
		t.Errorf("findings %+v", d.Findings)
	}
}

// FuzzWriteHTML checks that no recorded text, in a message, a response
// body or a stored output, adds an element to the page.
func FuzzWriteHTML(f *testing.F) {
	f.Add("<script>alert(1)</script>", []byte(`{"choices":[{"message":{"content":"</script>"}}]}`), "<img src=x onerror=alert(1)>")
	f.Add("\u2028\u2029<!--<script", []byte("<html><script>x</script>"), "\xff\xfe</SCRIPT >")
	f.Add("", []byte(nil), "")
	f.Fuzz(func(t *testing.T, content string, resp []byte, out string) {
		var b bytes.Buffer
		if err := WriteHTML(&b, hostileReplay(content, resp, out)); err != nil {
			t.Fatal(err)
		}
		checkInert(t, b.String())
		pageJSON(t, b.String())
	})
}

func TestValidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"abc":         "abc",
		"ab\xc3":      "ab",       // a rune cut short at the end
		"a\xffb":      "a\uFFFDb", // an invalid byte within
		"é€😀":         "é€😀",
		"😀"[:3]:       "",
		"x" + "😀"[:2]: "x",
	} {
		if got := validUTF8([]byte(in)); got != want {
			t.Errorf("validUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPageSlots holds the page to the slots WriteHTML fills, and the
// project's own style and script to text that cannot end their elements
// (they are written as they are, unescaped).
func TestPageSlots(t *testing.T) {
	var slots []string
	for _, p := range pageParts() {
		if p.slot != "" {
			slots = append(slots, p.slot)
		}
	}
	if got, want := strings.Join(slots, " "), "csp title style title data script"; got != want {
		t.Errorf("page slots = %s, want %s", got, want)
	}
	for name, s := range map[string]string{"style": pageStyle, "script": pageScript} {
		low := strings.ToLower(s)
		for _, bad := range []string{"</" + name, "<!--", "<script"} {
			if strings.Contains(low, bad) {
				t.Errorf("the page's %s holds %q", name, bad)
			}
		}
	}
}
