package policy

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCIDocAzure checks the Azure Pipelines pipeline docs/ci.md gives to
// copy against Azure Pipelines' published schema (the azure-pipelines
// VS Code extension's service-schema.json, vendored in testdata/schemas
// with its tasks cut to those the pipeline uses), and that it holds what
// --post azure needs: no CI trigger (the build validation policy runs it
// for pull requests), the whole history, the store kept per pull request,
// review --post azure in a step that runs only for a pull request, with
// the model's key from a secret variable and the job's access token
// mapped into SYSTEM_ACCESSTOKEN. A pipeline broken on purpose (a key the
// schema does not have, a task that does not exist) fails the schema.
func TestCIDocAzure(t *testing.T) {
	block := ciBlock(t, "# azure-pipelines.yml")
	schema := compileSchema(t, "azure-pipelines.json")
	valid := func(y string) error {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(y), &n); err != nil {
			return err
		}
		return schema.Validate(scalarsAsStrings(&n))
	}
	if err := valid(block); err != nil {
		t.Fatalf("the pipeline is not one Azure Pipelines takes: %v\n%s", err, block)
	}
	for _, broken := range []struct{ from, to string }{
		{"steps:", "stepz:"},
		{"task: Cache@2", "task: Cache@9"},
		{"fetchDepth: 0", "fetchDepth: [0]"},
	} {
		if err := valid(strings.Replace(block, broken.from, broken.to, 1)); err == nil {
			t.Errorf("the schema takes the pipeline with %q for %q", broken.to, broken.from)
		}
	}
	type step struct {
		Checkout  string            `yaml:"checkout"`
		Fetch     int               `yaml:"fetchDepth"`
		Task      string            `yaml:"task"`
		Inputs    map[string]string `yaml:"inputs"`
		Script    string            `yaml:"script"`
		Condition string            `yaml:"condition"`
		Env       map[string]string `yaml:"env"`
	}
	var p struct {
		Trigger   string            `yaml:"trigger"`
		Variables map[string]string `yaml:"variables"`
		Steps     []step            `yaml:"steps"`
	}
	if err := yaml.Unmarshal([]byte(block), &p); err != nil {
		t.Fatal(err)
	}
	if p.Trigger != "none" {
		t.Errorf("trigger %q: want none, the build validation policy runs it", p.Trigger)
	}
	var checkout, cache, review *step
	for i := range p.Steps {
		switch s := &p.Steps[i]; {
		case s.Checkout == "self":
			checkout = s
		case s.Task == "Cache@2":
			cache = s
		case strings.Contains(s.Script, "review\" --post azure"):
			review = s
		}
	}
	switch {
	case checkout == nil || checkout.Fetch != 0 || !strings.Contains(block, "fetchDepth: 0"):
		t.Error("no checkout of the whole history (fetchDepth: 0)")
	case cache == nil || cache.Inputs["path"] != "$(REVIEW_STORE)" || !strings.Contains(cache.Inputs["key"], "$(System.PullRequest.PullRequestId)") || p.Variables["REVIEW_STORE"] == "":
		t.Error("no cache of REVIEW_STORE keyed by the pull request")
	case review == nil:
		t.Error("no step runs review --post azure")
	case review.Env["SYSTEM_ACCESSTOKEN"] != "$(System.AccessToken)" || review.Env["OPENAI_API_KEY"] != "$(OPENAI_API_KEY)" || !strings.Contains(review.Condition, "'PullRequest'"):
		t.Errorf("the review step: env %v, condition %q: want the access token and the key mapped, pull requests only", review.Env, review.Condition)
	}
	if strings.Contains(block, "sk-") {
		t.Error("a key in the pipeline")
	}
}

// scalarsAsStrings is a YAML document as the schema's author, the Azure
// Pipelines language server, reads it: every scalar a string (the schema
// says "string" of a number or a boolean: the pipeline's parser reads
// them as text).
func scalarsAsStrings(n *yaml.Node) any {
	switch n.Kind {
	case yaml.DocumentNode:
		return scalarsAsStrings(n.Content[0])
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = scalarsAsStrings(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		var l []any
		for _, c := range n.Content {
			l = append(l, scalarsAsStrings(c))
		}
		return l
	case yaml.AliasNode:
		return scalarsAsStrings(n.Alias)
	}
	return n.Value
}
