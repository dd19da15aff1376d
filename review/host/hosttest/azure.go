package hosttest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Azure DevOps notifies whoever a pull request's comment mentions, and a
// mention there is not a name: the web client writes the person picked
// after "@" into the comment's text as "@<" and the identity's ID (a
// GUID) and ">", which the server reads in the text as stored, whatever
// Markdown would make of it (a code span or block included), and the page
// shows as the person's name. A plain "@alice" typed through the API is
// text. The oracle counts every "@<", a run of characters that are not
// white space or angle brackets, and ">", anywhere: any ID, a GUID or a
// descriptor, is taken for one the server may resolve.
var azureMention = regexp.MustCompile(`@<([^<>\s]+)>`)

// AzureMentions returns the IDs Azure DevOps would notify for body.
func AzureMentions(body string) []string {
	var out []string
	for _, m := range azureMention.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// AzureSchema holds the definitions of the Azure DevOps REST API 7.1 (the
// git area) that review sends and reads, vendored in testdata/schemas (its
// README names the source): the scripted Azure DevOps checks every request
// body and every answer it gives against them.
const AzureSchema = "azure-devops-git.json"

var azureDefs = sync.OnceValues(func() (func(def string) (*jsonschema.Schema, error), error) {
	return swaggerDefs(AzureSchema, true)
})

// ValidateAzure checks a JSON body against the definition def, or
// against an array of it when def starts with "[]".
func ValidateAzure(def string, body []byte) error {
	defs, err := azureDefs()
	if err != nil {
		return err
	}
	return validateDef(defs, def, body)
}

// azAnswer answers v, which must be of definition def, or with def
// "[]NAME" a collection of them, answered as Azure DevOps wraps one:
// {"count": n, "value": [...]}. An answer off the description is the
// scripted server's own fault, answered 500 so that the test fails on it.
func azAnswer(w http.ResponseWriter, status int, def string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = ValidateAzure(def, b)
	}
	if err != nil {
		azJSON(w, http.StatusInternalServerError, azError("the scripted Azure DevOps answered off its description ("+def+"): "+err.Error()))
		return
	}
	if _, ok := cutArray(def); ok {
		var items []json.RawMessage
		json.Unmarshal(b, &items)
		b, _ = json.Marshal(map[string]any{"count": len(items), "value": items})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8; api-version=7.1")
	w.WriteHeader(status)
	w.Write(b)
}

// azError is an error's body as Azure DevOps answers it.
func azError(msg string) map[string]any {
	return map[string]any{"$id": "1", "innerException": nil, "message": msg,
		"typeName": "Microsoft.TeamFoundation.SourceControl.WebServer.InvalidArgumentValueException, Microsoft.TeamFoundation.SourceControl.WebServer",
		"typeKey":  "InvalidArgumentValueException", "errorCode": 0, "eventId": 3000}
}

func azJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
