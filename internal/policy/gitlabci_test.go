package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIDocGitLab checks the .gitlab-ci.yml job docs/ci.md gives to copy:
// YAML that parses, run in merge-request pipelines only, reviewing against
// the target branch with its configuration, posting to the merge request,
// writing the Code Quality report it declares as an artifact (also when
// findings fail the job), interruptible and bounded in time, and with no
// secret in the file: the tokens are masked CI/CD variables.
func TestCIDocGitLab(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []string
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		if y, _, ok := strings.Cut(block, "\n```"); ok && strings.HasPrefix(y, "# .gitlab-ci.yml\n") {
			jobs = append(jobs, y)
		}
	}
	if len(jobs) != 1 {
		t.Fatalf("%d .gitlab-ci.yml blocks in docs/ci.md, want 1", len(jobs))
	}
	var ci map[string]struct {
		Image         string            `yaml:"image"`
		Interruptible bool              `yaml:"interruptible"`
		Timeout       string            `yaml:"timeout"`
		Variables     map[string]string `yaml:"variables"`
		Rules         []map[string]any  `yaml:"rules"`
		Script        []string          `yaml:"script"`
		Artifacts     struct {
			When    string            `yaml:"when"`
			Reports map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(jobs[0]), &ci); err != nil {
		t.Fatalf("the .gitlab-ci.yml job: %v\n%s", err, jobs[0])
	}
	job, ok := ci["review"]
	if !ok || len(ci) != 1 {
		t.Fatalf("want one job, review; got %v", ci)
	}
	if len(job.Rules) != 1 || job.Rules[0]["if"] != `$CI_PIPELINE_SOURCE == "merge_request_event"` {
		t.Errorf("rules %v: want merge-request pipelines only", job.Rules)
	}
	const report = "gl-code-quality-report.json"
	if job.Artifacts.Reports["codequality"] != report || job.Artifacts.When != "always" {
		t.Errorf("artifacts %+v: want reports: codequality: %s, when: always", job.Artifacts, report)
	}
	if !job.Interruptible || job.Timeout == "" {
		t.Errorf("interruptible %v, timeout %q", job.Interruptible, job.Timeout)
	}
	if job.Variables["GIT_DEPTH"] != "0" {
		t.Errorf("variables %v: want GIT_DEPTH 0 for the merge base", job.Variables)
	}
	var run string
	for _, line := range job.Script {
		if strings.HasPrefix(line, "review ") {
			run = line
		}
	}
	for _, want := range []string{
		`--base "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"`,
		"--config-from base",
		"--post gitlab",
		"--output codequality=" + report,
		"--fail-on ",
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the review command %q lacks %q", run, want)
		}
	}
	// The secrets are masked variables of the project, never in the file.
	for _, secret := range []string{"GITLAB_TOKEN", "REVIEW_GITLAB_TOKEN", "OPENAI_API_KEY"} {
		if strings.Contains(jobs[0], secret) {
			t.Errorf("the job names %s: it must come from a masked CI/CD variable", secret)
		}
	}
	if !strings.Contains(string(raw), "masked CI/CD variables") {
		t.Error("docs/ci.md does not say to add the tokens as masked CI/CD variables")
	}
}
