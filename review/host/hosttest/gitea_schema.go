package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reviewdev/review/review/reviewtest"
)

// GiteaSchema holds the definitions of Gitea's swagger that review sends
// and reads, vendored in testdata/schemas (its README names the source):
// the scripted Gitea checks every request body and every answer it gives
// against them, so that neither side drifts from Gitea's API.
const GiteaSchema = "gitea-api.json"

// giteaDefs compiles the definitions once per test binary. Go's
// encoding/json, which Gitea answers with, writes a nil pointer as null,
// which swagger 2.0 cannot say: each reference to a definition admits null
// too.
var giteaDefs = sync.OnceValues(func() (func(def string) (*jsonschema.Schema, error), error) {
	return swaggerDefs(GiteaSchema, true)
})

// swaggerDefs loads the vendored file name, whose definitions are a
// swagger 2.0 document's, with each reference admitting null (nullRefs)
// when nullable, and returns what compiles one definition, by name, once.
func swaggerDefs(name string, nullable bool) (func(def string) (*jsonschema.Schema, error), error) {
	path, err := reviewtest.SchemaPath(name)
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
	if nullable {
		nullRefs(doc)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	compiled := map[string]*jsonschema.Schema{}
	return func(def string) (*jsonschema.Schema, error) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := compiled[def]; ok {
			return s, nil
		}
		s, err := c.Compile(path + "#/definitions/" + def)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", def, err)
		}
		compiled[def] = s
		return s, nil
	}, nil
}

// nullRefs rewrites each {"$ref": …} into one that admits null as well;
// a description beside the reference (Azure DevOps' description gives
// one), which draft-04 ignores there, goes with it.
func nullRefs(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if m, ok := x.(map[string]any); ok && m["$ref"] != nil && (len(m) == 1 || len(m) == 2 && m["description"] != nil) {
				v[k] = map[string]any{"anyOf": []any{map[string]any{"$ref": m["$ref"]}, map[string]any{"type": "null"}}}
				continue
			}
			nullRefs(x)
		}
	case []any:
		for _, x := range v {
			nullRefs(x)
		}
	}
}

// ValidateGitea checks a JSON body against the swagger definition def, or
// against an array of it when def starts with "[]".
func ValidateGitea(def string, body []byte) error {
	defs, err := giteaDefs()
	if err != nil {
		return err
	}
	return validateDef(defs, def, body)
}

// validateDef checks a JSON body against the definition def of defs, or
// against an array of it when def starts with "[]".
func validateDef(defs func(string) (*jsonschema.Schema, error), def string, body []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if name, ok := cutArray(def); ok {
		items, isArray := inst.([]any)
		if !isArray {
			return fmt.Errorf("not an array of %s", name)
		}
		s, err := defs(name)
		if err != nil {
			return err
		}
		for i, it := range items {
			if err := s.Validate(it); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	s, err := defs(def)
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func cutArray(def string) (string, bool) {
	if len(def) > 2 && def[:2] == "[]" {
		return def[2:], true
	}
	return def, false
}

// giteaAnswer answers v, which must be of definition def: an answer off
// Gitea's swagger is the scripted server's own fault, answered 500 so
// that the test fails on it.
func giteaAnswer(w http.ResponseWriter, status int, def string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = ValidateGitea(def, b)
	}
	if err != nil {
		gtJSON(w, http.StatusInternalServerError, map[string]string{"message": "the scripted Gitea answered off its swagger (" + def + "): " + err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
