package reviewtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schemas vendored in the repository's testdata/schemas, whose
// README.md notes each one's source and licence.
const (
	// OpenAISchema holds OpenAI's chat-completions request and response
	// schemas under #/components/schemas.
	OpenAISchema = "openai-chat-completions.json"
	// SARIFSchema is the SARIF 2.1.0 JSON Schema.
	SARIFSchema = "sarif-schema-2.1.0.json"
	// CodeQualitySchema is GitLab's Code Quality report as GitLab's
	// documentation specifies it: an array of issues.
	CodeQualitySchema = "gitlab-codequality-report.json"
	// CodeClimateSchema is the schema GitLab's parser checks each issue
	// of a Code Quality report with.
	CodeClimateSchema = "gitlab-codeclimate.json"
)

// SchemaPath returns the path of the named schema in the repository's
// testdata/schemas. The repository is the module holding the working
// directory (the nearest parent with a go.mod): tests run in their
// package's directory, so this finds it from any package, and nothing
// outside the clone is read. A schema that is not there is an error, for
// the test to fail on rather than skip.
func SchemaPath(name string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("schema %s: no go.mod in %s or any parent directory, so no module's testdata/schemas", name, wd)
		}
		root = parent
	}
	p := filepath.Join(root, "testdata", "schemas", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("schema %s is not in the module's testdata/schemas: %w", name, err)
	}
	return p, nil
}

// ValidateRequest checks body against CreateChatCompletionRequest.
func ValidateRequest(body []byte) error {
	return validate(body, func(s *schemas) *jsonschema.Schema { return s.request })
}

// ValidateResponse checks body against CreateChatCompletionResponse.
func ValidateResponse(body []byte) error {
	return validate(body, func(s *schemas) *jsonschema.Schema { return s.response })
}

func validate(body []byte, pick func(*schemas) *jsonschema.Schema) error {
	s, err := loadSchemas()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return pick(s).Validate(inst)
}

type schemas struct {
	request, response *jsonschema.Schema
}

// loadSchemas compiles the schema once per test binary: it is 90 KB and
// every client test validates what it sent.
var loadSchemas = sync.OnceValues(func() (*schemas, error) {
	path, err := SchemaPath(OpenAISchema)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	nullable(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		return nil, err
	}
	var s schemas
	for name, dst := range map[string]**jsonschema.Schema{
		"CreateChatCompletionRequest":  &s.request,
		"CreateChatCompletionResponse": &s.response,
	} {
		if *dst, err = c.Compile(path + "#/components/schemas/" + name); err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
	}
	return &s, nil
})

// nullable rewrites OpenAPI 3.0's "nullable": true, which JSON Schema
// does not know, into the JSON Schema form: null added to the type (and to
// the enum, if any). Without it a valid null would be rejected.
func nullable(v any) {
	switch v := v.(type) {
	case map[string]any:
		if n, _ := v["nullable"].(bool); n {
			if t, ok := v["type"].(string); ok {
				v["type"] = []any{t, "null"}
			}
			if e, ok := v["enum"].([]any); ok {
				v["enum"] = append(e, nil)
			}
		}
		for _, x := range v {
			nullable(x)
		}
	case []any:
		for _, x := range v {
			nullable(x)
		}
	}
}
