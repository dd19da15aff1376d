package gitlab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
)

// A SHA GitLab answers is copied into every discussion's position: one
// that is not a whole commit SHA (40 or 64 hexadecimal digits) is never
// posted back. A versions answer whose head_commit_sha is 100,040
// characters leaves that version out; with no valid version, nothing is
// posted and the error names the field and its length, not its text.
func TestVersionSHAs(t *testing.T) {
	huge := strings.Repeat("a", 100_040)
	good := hosttest.DefaultGitLabVersions[1]
	for _, c := range []struct {
		name     string
		versions []hosttest.GitLabVersion
		err      string
		head     string
	}{
		{"huge newest, valid older", []hosttest.GitLabVersion{
			{ID: 2, HeadCommitSHA: huge, BaseCommitSHA: strings.Repeat("b", 40), StartCommitSHA: strings.Repeat("5", 40)}, good}, "", good.HeadCommitSHA},
		{"only huge", []hosttest.GitLabVersion{
			{ID: 2, HeadCommitSHA: huge, BaseCommitSHA: strings.Repeat("b", 40), StartCommitSHA: strings.Repeat("5", 40)}},
			"GitLab's diff version 2 has a head_commit_sha that is not a commit SHA (100040 characters, want 40 or 64 hexadecimal digits)", ""},
		{"abbreviated base", []hosttest.GitLabVersion{
			{ID: 3, HeadCommitSHA: strings.Repeat("2", 40), BaseCommitSHA: "bbbbbbb", StartCommitSHA: strings.Repeat("5", 40)}},
			"diff version 3 has a base_commit_sha that is not a commit SHA (7 characters", ""},
		{"not hex", []hosttest.GitLabVersion{
			{ID: 4, HeadCommitSHA: strings.Repeat("z", 40), BaseCommitSHA: strings.Repeat("b", 40), StartCommitSHA: strings.Repeat("5", 40)}},
			"head_commit_sha that is not a commit SHA (40 characters", ""},
		{"sha-256", []hosttest.GitLabVersion{
			{ID: 5, HeadCommitSHA: strings.Repeat("e", 64), BaseCommitSHA: strings.Repeat("b", 64), StartCommitSHA: strings.Repeat("5", 64)}}, "", strings.Repeat("e", 64)},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &hosttest.GitLab{Versions: c.versions}
			o := start(t, g, false)
			o.HeadSHA = h1
			_, err := Post(context.Background(), testResult("run-1", onAdded), testDiff(), o)
			posted, _ := os.ReadFile(filepath.Join(g.Dir, "requests.log"))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				if strings.Contains(err.Error(), "aaaaaaaaaa") {
					t.Errorf("the error quotes the answer: %.200s", err)
				}
				if strings.Contains(string(posted), "POST") {
					t.Errorf("posted with no valid version:\n%s", posted)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dn := diffNotes(g.Notes("group/proj", 3))
			if len(dn) != 1 {
				t.Fatalf("%d discussions, want 1", len(dn))
			}
			if pos := dn[0]["position"].(map[string]any); pos["head_sha"] != c.head {
				t.Errorf("head_sha %.80v, want %s", pos["head_sha"], c.head)
			}
			if bodies := readAll(t, g.Dir); strings.Contains(bodies, huge[:1000]) {
				t.Error("the huge SHA was posted back")
			}
		})
	}
}

// readAll is every recorded request body.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "gl-*.json"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
