package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		if y, _, ok := strings.Cut(block, "\n```"); ok && strings.HasPrefix(y, "# bitbucket-pipelines.yml\n") {
			blocks = append(blocks, y)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%d bitbucket-pipelines.yml blocks in docs/ci.md, want 1", len(blocks))
	}
	schema := compileBitbucketPipelines(t)
	if err := schema.Validate(yamlValue(t, blocks[0])); err != nil {
		t.Errorf("the recipe is not a bitbucket-pipelines.yml by Bitbucket's schema: %v\n%s", err, blocks[0])
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
	if err := yaml.Unmarshal([]byte(blocks[0]), &file); err != nil {
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
	if strings.Contains(blocks[0], "sk-") || strings.Contains(blocks[0], "OPENAI_API_KEY") || strings.Contains(blocks[0], "BITBUCKET_TOKEN") {
		t.Error("the file names a secret: they are secured repository variables")
	}
	for name, bad := range map[string]string{
		"depth":    strings.Replace(blocks[0], "depth: full", "depth: whole", 1),
		"max-time": strings.Replace(blocks[0], "max-time: 20", "max-time: 20m", 1),
	} {
		if schema.Validate(yamlValue(t, bad)) == nil {
			t.Errorf("the schema takes a recipe broken on purpose (%s)", name)
		}
	}
}

// compileBitbucketPipelines compiles the vendored schema of
// bitbucket-pipelines.yml.
func compileBitbucketPipelines(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("testdata", "schemas", "bitbucket-pipelines.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	abs, _ := filepath.Abs(path)
	if err := c.AddResource(abs, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return s
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
