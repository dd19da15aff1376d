package cmd

import "testing"

// TestCIFrom holds the one answer to "are we in CI?": every place that
// behaves differently in CI takes it from ciFrom, so CI=false means a run
// at a desk everywhere.
func TestCIFrom(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want ciEnv
	}{
		{"desk", nil, ciEnv{}},
		{"generic CI", map[string]string{"CI": "true"}, ciEnv{On: true}},
		{"CI=1", map[string]string{"CI": "1"}, ciEnv{On: true}},
		{"CI=yes", map[string]string{"CI": "yes"}, ciEnv{On: true}},
		{"CI=false", map[string]string{"CI": "false"}, ciEnv{}},
		{"CI=0 in GitHub Actions", map[string]string{"CI": "0", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main"}, ciEnv{}},
		{"GitHub push", map[string]string{"CI": "true", "GITHUB_ACTIONS": "true"}, ciEnv{On: true, Host: "github"}},
		{"GitHub pull request", map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main"}, ciEnv{On: true, Host: "github", Base: "origin/main"}},
		{"GitHub without CI", map[string]string{"GITHUB_ACTIONS": "true"}, ciEnv{On: true, Host: "github"}},
		{"GITHUB_ACTIONS not true", map[string]string{"GITHUB_ACTIONS": "1", "GITHUB_BASE_REF": "main"}, ciEnv{}},
		{"GitLab merge request", map[string]string{"CI": "true", "GITLAB_CI": "true", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "dev"}, ciEnv{On: true, Host: "gitlab", Base: "origin/dev"}},
		{"Gitea pull request", map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITEA_ACTIONS": "true", "GITHUB_BASE_REF": "main"}, ciEnv{On: true, Host: "gitea", Base: "origin/main"}},
		{"Forgejo pull request", map[string]string{"CI": "true", "FORGEJO_ACTIONS": "true", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "dev"}, ciEnv{On: true, Host: "gitea", Base: "origin/dev"}},
		{"GitLab branch pipeline", map[string]string{"CI": "true", "GITLAB_CI": "true"}, ciEnv{On: true, Host: "gitlab"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ciFrom(func(k string) string { return c.env[k] }); got != c.want {
				t.Errorf("ciFrom = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestRepoRevFollowsCI: the repository configuration is read from the base
// in CI, from the work tree elsewhere, CI=false included.
func TestRepoRevFollowsCI(t *testing.T) {
	for _, c := range []struct {
		ci, from, want string
	}{
		{"true", "", "main"},
		{"false", "", ""},
		{"", "", ""},
		{"", "base", "main"},
		{"true", "worktree", ""},
	} {
		a := agentFlags{Base: "main", ConfigFrom: c.from, ci: ciFrom(func(k string) string { return map[string]string{"CI": c.ci}[k] })}
		if got := a.repoRev(); got != c.want {
			t.Errorf("CI=%q --config-from %q: repoRev = %q, want %q", c.ci, c.from, got, c.want)
		}
	}
}
