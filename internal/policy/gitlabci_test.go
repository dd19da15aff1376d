package policy

import (
	"os"
	"path/filepath"
	"slices"
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

// TestCIDocGitLabComments checks the comment recipe of docs/ci.md: YAML
// that parses, run only by a pipeline trigger's webhook payload, a child
// pipeline whose job runs review comment with the merge request's own
// cache key, and no secret in the file.
func TestCIDocGitLabComments(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var recipe string
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		if y, _, ok := strings.Cut(block, "\n```"); ok && strings.HasPrefix(y, "# .gitlab-ci.yml (comments)\n") {
			recipe = y
		}
	}
	if recipe == "" {
		t.Fatal("docs/ci.md has no .gitlab-ci.yml (comments) block")
	}
	var ci map[string]struct {
		Rules   []map[string]any `yaml:"rules"`
		Script  []string         `yaml:"script"`
		Trigger struct {
			Include  []map[string]string `yaml:"include"`
			Strategy string              `yaml:"strategy"`
		} `yaml:"trigger"`
		Artifacts struct {
			Paths []string `yaml:"paths"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(recipe), &ci); err != nil {
		t.Fatalf("the comment recipe: %v", err)
	}
	plan, trigger := ci["review-command-plan"], ci["review-command"]
	for name, j := range map[string][]map[string]any{"review-command-plan": plan.Rules, "review-command": trigger.Rules} {
		if len(j) != 1 || j[0]["if"] != `$CI_PIPELINE_SOURCE == "trigger" && $TRIGGER_PAYLOAD` {
			t.Errorf("%s: rules %v: want the trigger's webhook only", name, j)
		}
	}
	if len(trigger.Trigger.Include) != 1 || trigger.Trigger.Include[0]["artifact"] != "command.yml" || trigger.Trigger.Include[0]["job"] != "review-command-plan" || trigger.Trigger.Strategy != "depend" {
		t.Errorf("review-command's trigger %+v: want the plan's command.yml as a child pipeline", trigger.Trigger)
	}
	script := strings.Join(plan.Script, "\n")
	for _, want := range []string{`startswith("/review")`, "key: review-store-mr-$MR", "review comment", "TRIGGER_PAYLOAD: \\$CI_PROJECT_DIR/note.json", "review gc"} {
		if !strings.Contains(script, want) {
			t.Errorf("the plan's script lacks %q", want)
		}
	}
	// The child job, as the plan writes it, is YAML too.
	child, _, _ := strings.Cut(script[strings.Index(script, "<<EOF\n")+len("<<EOF\n"):], "\nEOF")
	child = strings.NewReplacer("\\$", "$", "$MR", "3", "$CI_PIPELINE_ID", "1").Replace(child)
	var job map[string]struct {
		Script []string `yaml:"script"`
		Cache  struct {
			Key string `yaml:"key"`
		} `yaml:"cache"`
	}
	if err := yaml.Unmarshal([]byte(child), &job); err != nil {
		t.Fatalf("the child job: %v\n%s", err, child)
	}
	if c := job["review-command"]; c.Cache.Key != "review-store-mr-3" || !slices.ContainsFunc(c.Script, func(s string) bool { return strings.HasPrefix(s, "review comment") }) {
		t.Errorf("the child job %+v", c)
	}
	for _, secret := range []string{"GITLAB_TOKEN", "OPENAI_API_KEY", "token="} {
		if strings.Contains(recipe, secret) {
			t.Errorf("the recipe names %s: it must come from a masked CI/CD variable", secret)
		}
	}
}
