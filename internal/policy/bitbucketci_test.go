package policy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// TestCIDocBitbucket checks the bitbucket-pipelines.yml docs/ci.md gives
// to copy against the schema Bitbucket publishes for the file
// (https://api.bitbucket.org/schemas/pipelines-configuration, vendored in
// testdata/schemas/bitbucket-pipelines.json with its source): a
// pull-requests pipeline, for every branch, whose step clones the whole
// history and runs review --post bitbucket, and no secret in the file
// (OPENAI_API_KEY and BITBUCKET_TOKEN are secured repository variables).
// The schema sees what it is here for: a clone depth that is neither a
// number nor "full", and a max-time that is not a number of minutes, are
// refused.
func TestCIDocBitbucket(t *testing.T) {
	block := ciBlock(t, "# bitbucket-pipelines.yml")
	schema := compileSchema(t, "bitbucket-pipelines.json")
	if err := schema.Validate(yamlValue(t, block)); err != nil {
		t.Errorf("the recipe is not a bitbucket-pipelines.yml by Bitbucket's schema: %v\n%s", err, block)
	}
	var file struct {
		Clone struct {
			Depth any `yaml:"depth"`
		} `yaml:"clone"`
		Pipelines struct {
			PullRequests map[string][]struct {
				Step struct {
					Script []string `yaml:"script"`
				} `yaml:"step"`
			} `yaml:"pull-requests"`
		} `yaml:"pipelines"`
	}
	if err := yaml.Unmarshal([]byte(block), &file); err != nil {
		t.Fatal(err)
	}
	if file.Clone.Depth != "full" {
		t.Errorf("clone depth %v: want full, for the merge base", file.Clone.Depth)
	}
	runs := false
	for _, item := range file.Pipelines.PullRequests["**"] {
		for _, line := range item.Step.Script {
			runs = runs || strings.HasPrefix(line, "review --post bitbucket")
		}
	}
	if !runs {
		t.Error("no step of the pull-requests pipeline for every branch ('**') runs review --post bitbucket")
	}
	if strings.Contains(block, "sk-") || strings.Contains(block, "OPENAI_API_KEY") || strings.Contains(block, "BITBUCKET_TOKEN") {
		t.Error("the file names a secret: they are secured repository variables")
	}
	for name, bad := range map[string]string{
		"depth":    strings.Replace(block, "depth: full", "depth: whole", 1),
		"max-time": strings.Replace(block, "max-time: 20", "max-time: 20m", 1),
	} {
		if schema.Validate(yamlValue(t, bad)) == nil {
			t.Errorf("the schema takes a recipe broken on purpose (%s)", name)
		}
	}
}

// yamlValue is a YAML document as the JSON value a schema validates.
func yamlValue(t *testing.T, y string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(y), &v); err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}
