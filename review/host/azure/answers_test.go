package azure

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/seam"
)

// me is the token's identity in FuzzAnswers' seeds.
const me = "5c0d8a3e-6b0f-4d39-9c33-3f8d1c7e2a10"

// FuzzAnswers reads any list of threads Azure DevOps could answer as
// review does (keep, sort, earlier, the ledger): nothing panics, only a
// thread whose first comment the token wrote counts, every head read back
// is a commit SHA, every address is one line, and every thread named for
// a reply or a resolution has an ID review can send back.
func FuzzAnswers(f *testing.F) {
	fp := "0123456789abcdef0123456789abcdef"
	marker := seam.CommentMarker(fp, "run1", "code=1-0123456789abcdef") + "\n**[high] T** · security"
	summary := seam.ReviewMarker("run1", strings.Repeat("a", 40), "heads="+strings.Repeat("b", 40)+",zz")
	for _, v := range []any{
		map[string]any{"count": 2, "value": []any{
			map[string]any{"id": 3, "status": "wontFix", "threadContext": map[string]any{"filePath": "/a.go", "rightFileStart": map[string]any{"line": 4, "offset": 1}},
				"comments": []any{map[string]any{"id": 1, "parentCommentId": 0, "author": map[string]any{"id": me}, "content": marker}}},
			map[string]any{"id": 4, "threadContext": nil,
				"comments": []any{map[string]any{"id": 1, "author": map[string]any{"id": strings.ToUpper(me)}, "content": summary}}},
		}},
		map[string]any{"value": []any{map[string]any{"id": 9, "status": "fixed", "threadContext": map[string]any{"filePath": "/x\n::warning::y", "leftFileStart": map[string]any{"line": -1}},
			"comments": []any{map[string]any{"id": 1, "author": map[string]any{"id": me}, "content": marker},
				map[string]any{"id": 2, "parentCommentId": 1, "author": map[string]any{"id": me}, "content": seam.FixedMarker(fp)}}}}},
		map[string]any{"value": []any{map[string]any{"id": -1, "comments": []any{}}, map[string]any{"id": 2147483647, "isDeleted": true}}},
	} {
		b, _ := json.Marshal(v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ts collection[thread]
		if json.Unmarshal(b, &ts) != nil {
			return
		}
		st := &prState{me: me, web: "https://dev.azure.example/fabrikam/p/_git/r/pullrequest/1", threads: keep(ts.Value)}
		st.sort()
		e := st.earlier()
		for _, h := range e.Heads {
			if !seam.FullSHA(h) && !seam.SHA().MatchString(h) {
				t.Fatalf("head %q is not a commit SHA", h)
			}
		}
		for _, o := range e.Open {
			if strings.ContainsAny(o.URL, "\n\r") {
				t.Fatalf("address %q is not one line", o.URL)
			}
		}
		for _, th := range e.Threads {
			if _, err := parseID(th.ReplyTo); err != nil || strings.ContainsAny(th.URL, "\n\r") {
				t.Fatalf("thread %+v: %v", th, err)
			}
		}
		for _, th := range st.findings {
			if !th.first().by(me) {
				t.Fatalf("a thread another identity started counts as review's: %+v", th)
			}
		}
	})
}
