package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/gitea"
	"github.com/reviewdev/review/review/host/gitlab"
)

// TestGitLabTarget: flags name the merge request over GitLab CI's
// variables, the token comes from GITLAB_TOKEN, else REVIEW_GITLAB_TOKEN,
// and what is missing is said before any review.
func TestGitLabTarget(t *testing.T) {
	ci := map[string]string{
		"GITLAB_CI": "true", "CI_API_V4_URL": "https://gitlab.example/api/v4", "CI_PROJECT_ID": "7",
		"CI_MERGE_REQUEST_IID": "12", "GITLAB_TOKEN": "glpat-a", "REVIEW_GITLAB_TOKEN": "glpat-b",
		"CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": "0123456789abcdef0123456789abcdef01234567",
	}
	with := func(over map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return ci[k]
		}
	}
	tests := []struct {
		name  string
		env   map[string]string
		flags map[string]string
		want  gitlab.Options
		inCI  bool
		err   string
	}{
		{name: "ci", want: gitlab.Options{APIURL: "https://gitlab.example/api/v4", Project: "7", MR: 12, Token: "glpat-a", HeadSHA: ci["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"]}, inCI: true},
		{name: "flags", env: map[string]string{"GITLAB_CI": "", "CI_API_V4_URL": "", "GITLAB_TOKEN": "", "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": ""},
			flags: map[string]string{"gitlab-project": "group/proj", "gitlab-mr": "3"},
			want:  gitlab.Options{APIURL: gitlab.DefaultAPIURL, Project: "group/proj", MR: 3, Token: "glpat-b"}},
		{name: "no token", env: map[string]string{"GITLAB_TOKEN": "", "REVIEW_GITLAB_TOKEN": ""}, err: "--post gitlab needs GITLAB_TOKEN"},
		{name: "no project", env: map[string]string{"CI_PROJECT_ID": ""}, err: "--post gitlab needs the project"},
		{name: "no merge request", env: map[string]string{"CI_MERGE_REQUEST_IID": ""}, err: "--post gitlab needs the merge request"},
		{name: "bad flag", flags: map[string]string{"gitlab-mr": "!3"}, err: `--gitlab-mr "!3" is not a merge request IID`},
		{name: "bad variable", env: map[string]string{"CI_MERGE_REQUEST_IID": "x"}, err: `CI_MERGE_REQUEST_IID "x" is not`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &ReviewOptions{Getenv: with(tt.env), Post: "gitlab", hostFlags: withHostFlags(tt.flags)}
			opts.ci = ciFrom(opts.Getenv)
			pt, err := postTargetFrom(opts)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := pt.poster.(*gitlab.Poster).Options
			if got != tt.want || pt.inCI != tt.inCI || pt.poster.Target() != fmt.Sprintf("merge request !%d", tt.want.MR) {
				t.Errorf("options %+v, in CI %v, target %q; want %+v, %v", got, pt.inCI, pt.poster.Target(), tt.want, tt.inCI)
			}
		})
	}
}

// TestGiteaTarget: --gitea-url names the API over GITHUB_API_URL, the token
// comes from GITEA_TOKEN, else the Actions token in GITHUB_TOKEN, the pull
// request from the event, and what is missing is said, with the flag that
// gives it, before any review.
func TestGiteaTarget(t *testing.T) {
	event := filepath.Join(t.TempDir(), "event.json")
	head := "0123456789abcdef0123456789abcdef01234567"
	if err := os.WriteFile(event, []byte(`{"action":"synchronized","number":9,"pull_request":{"number":9,"head":{"sha":"`+head+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ci := map[string]string{
		"GITEA_ACTIONS": "true", "GITHUB_ACTIONS": "true", "GITHUB_API_URL": "https://gitea.example/api/v1",
		"GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": event, "GITHUB_TOKEN": "actions", "GITEA_TOKEN": "personal",
	}
	with := func(over map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return ci[k]
		}
	}
	tests := []struct {
		name  string
		env   map[string]string
		flags map[string]string
		want  gitea.Options
		inCI  bool
		err   string
	}{
		{name: "ci", want: gitea.Options{APIURL: "https://gitea.example/api/v1", Token: "personal", Repo: "o/r", PR: 9, HeadSHA: head}, inCI: true},
		{name: "actions token", env: map[string]string{"GITEA_TOKEN": ""}, want: gitea.Options{APIURL: "https://gitea.example/api/v1", Token: "actions", Repo: "o/r", PR: 9, HeadSHA: head}, inCI: true},
		{name: "flag", env: map[string]string{"GITEA_ACTIONS": "", "GITHUB_ACTIONS": "", "GITHUB_API_URL": ""}, flags: map[string]string{"gitea-url": "https://codeberg.org/api/v1"},
			want: gitea.Options{APIURL: "https://codeberg.org/api/v1", Token: "personal", Repo: "o/r", PR: 9, HeadSHA: head}},
		{name: "no token", env: map[string]string{"GITEA_TOKEN": "", "GITHUB_TOKEN": ""}, err: "--post gitea needs GITEA_TOKEN"},
		{name: "no API", env: map[string]string{"GITHUB_API_URL": ""}, err: "--post gitea needs the instance's API: GITHUB_API_URL, as Gitea and Forgejo Actions set it (…/api/v1), or --gitea-url"},
		{name: "no event", env: map[string]string{"GITHUB_EVENT_PATH": ""}, err: "--post gitea needs GITHUB_EVENT_PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &ReviewOptions{Getenv: with(tt.env), Post: "gitea", hostFlags: withHostFlags(tt.flags)}
			opts.ci = ciFrom(opts.Getenv)
			pt, err := postTargetFrom(opts)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := pt.poster.(*gitea.Poster).Options
			if got != tt.want || pt.inCI != tt.inCI || pt.head != head || pt.poster.Target() != "pull request #9" {
				t.Errorf("options %+v, in CI %v, head %q, target %q; want %+v, %v", got, pt.inCI, pt.head, pt.poster.Target(), tt.want, tt.inCI)
			}
		})
	}
}
