package reviewtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the OpenAI chat-completions schema, kept beside the
// repository as shared/schemas/openai-chat-completions.json.
const schemaFile = "openai-chat-completions.json"

// SchemaPath finds shared/schemas/openai-chat-completions.json in the
// working directory or the nearest parent that has it. Tests run in their
// package's directory, and the repository is checked out with shared/ next
// to it, so walking up finds it from any package.
func SchemaPath() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "schemas", schemaFile)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("cannot find shared/schemas/%s in %s or any parent directory", schemaFile, wd)
		}
	}
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
	path, err := SchemaPath()
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
