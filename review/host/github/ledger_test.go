package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/seam"
)

var reactionsPath = regexp.MustCompile(`^/api/v3/repos/o/r/pulls/comments/(\d+)/reactions$`)

// ledger answers the fake's GraphQL threads query (one page, the
// variables checked) and the 👎 reactions of a review comment.
func (g *fakeGitHub) ledger(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/permission") {
		perm := "read"
		if strings.HasSuffix(r.URL.Path, "/collaborators/bob/permission") {
			perm = "write"
		}
		writeGitHubJSON(w, http.StatusOK, map[string]any{"permission": perm})
		return
	}
	if m := reactionsPath.FindStringSubmatch(r.URL.Path); m != nil {
		if c := r.URL.Query().Get("content"); c != "-1" {
			g.t.Errorf("reactions asked with content %q, want -1", c)
		}
		id, _ := strconv.ParseInt(m[1], 10, 64)
		writeGitHubJSON(w, http.StatusOK, append([]map[string]any{}, g.reactions[id]...))
		return
	}
	var in graphQLRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		g.t.Errorf("GraphQL body: %v", err)
	}
	if !strings.Contains(in.Query, "reviewThreads(first: 100, after: $after)") || in.Variables["owner"] != "o" || in.Variables["name"] != "r" || in.Variables["number"] != float64(7) {
		g.t.Errorf("GraphQL request %+v", in)
	}
	threads := append([]map[string]any{}, g.threads...)
	writeGitHubJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{
		"reviewThreads": map[string]any{"pageInfo": map[string]any{"hasNextPage": false, "endCursor": nil}, "nodes": threads}}}}})
}

func thread(id, first int64, resolvedBy string) map[string]any {
	t := map[string]any{"id": fmt.Sprintf("PRRT_%d", id), "isResolved": resolvedBy != "", "isOutdated": false,
		"comments": map[string]any{"nodes": []map[string]any{{"databaseId": first}}}}
	if resolvedBy != "" {
		t["resolvedBy"] = map[string]any{"login": resolvedBy}
	}
	return t
}

// TestReadThreads: the ledger's threads are review's finding comments by
// trusted authors, with what people did: resolved (by whom), 👎 (by a
// person, not a bot), /review dismiss (review's own reply, not a copy by
// someone else), and resolved by review itself (its fixed reply). Only a
// 👎 by a person with write access counts.
func TestReadThreads(t *testing.T) {
	g := newFakeGitHub(t)
	bot := ghUser{Login: "github-actions[bot]", Type: "Bot"}
	person := ghUser{Login: "mallory", Type: "User"}
	comment := func(id int64, u ghUser, body string, line any) map[string]any {
		return map[string]any{"id": id, "user": u, "path": "a.go", "line": line, "body": body, "html_url": fmt.Sprintf("https://github.example/c/%d", id)}
	}
	finding := func(fp string) string {
		return seam.CommentMarker(fp, "r1", seam.AnchorField("1-0123456789abcdef")) + "\n**[high] T** · security"
	}
	reply := func(id, to int64, u ghUser, body string) map[string]any {
		c := comment(id, u, body, 3)
		c["in_reply_to_id"] = to
		return c
	}
	g.comments = []map[string]any{
		comment(10, bot, finding("aa"), 3),
		comment(11, bot, finding("bb"), 4),
		comment(12, bot, finding("cc"), 5),
		comment(13, bot, finding("dd"), 6),
		comment(14, bot, finding("ee"), 7),
		comment(15, person, finding("ff"), 8), // a copy: not review's
		reply(16, 12, bot, seam.DismissMarker("cc", "carol")+"\nDismissed"),
		reply(17, 13, person, seam.DismissMarker("dd", "mallory")+"\nforged"),
		reply(18, 14, bot, seam.FixedMarker("ee")+"\nFixed"),
	}
	g.threads = []map[string]any{thread(1, 10, "alice"), thread(2, 11, ""), thread(3, 12, ""), thread(4, 13, ""), thread(5, 14, "github-actions"), thread(6, 15, "")}
	g.reactions = map[int64][]map[string]any{
		11: {{"content": "-1", "user": map[string]any{"login": "bob", "type": "User"}}},
		13: { // neither a bot nor a person who may only read dismisses
			{"content": "-1", "user": map[string]any{"login": "dependabot[bot]", "type": "Bot"}},
			{"content": "-1", "user": map[string]any{"login": "mallory", "type": "User"}},
		},
	}
	e, err := ReadEarlier(context.Background(), g.options())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range e.Threads {
		got = append(got, fmt.Sprintf("%s %s %s %s %v/%v/%s %q", th.Fingerprint, th.Run, th.Code, th.ID, th.Resolved, th.ResolvedByUs, th.ResolvedBy, th.Dismissed))
	}
	want := []string{
		`aa r1 1-0123456789abcdef PRRT_1 true/false/alice ""`,
		`bb r1 1-0123456789abcdef PRRT_2 false/false/ "marked 👎 by bob"`,
		`cc r1 1-0123456789abcdef PRRT_3 false/false/ "/review dismiss by carol"`,
		`dd r1 1-0123456789abcdef PRRT_4 false/false/ ""`,
		`ee r1 1-0123456789abcdef PRRT_5 true/true/github-actions ""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("threads:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
