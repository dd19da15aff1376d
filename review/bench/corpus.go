package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/review/result"
)

// Case is one case of a corpus: a change to review and the issues a review
// of it is expected to find.
type Case struct {
	ID string `json:"id"`
	// Repo is a local path or a git URL.
	Repo string `json:"repo"`
	// Base and Head are the revisions reviewed, as `review --base Base
	// --head Head` would; or RevertOf names a bug-fix commit, and the
	// change reviewed is its revert applied on top of it, which puts the
	// bug back.
	Base     string `json:"base,omitempty"`
	Head     string `json:"head,omitempty"`
	RevertOf string `json:"revert_of,omitempty"`
	// Clean marks a change with no defect: every finding on it is a false
	// positive.
	Clean bool `json:"clean,omitempty"`
	// Description says in one line what the defect (or the clean change)
	// is.
	Description string     `json:"description,omitempty"`
	Expected    []Expected `json:"expected"`
	// Language is the main language of the change, for people; scoring
	// does not read it.
	Language string `json:"language,omitempty"`
}

// Expected is an issue a review of a case should find: a range of lines of
// the new version of a file.
type Expected struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Severity is the severity, or "" when the corpus does not
	// rate it (the issues a revert_of case derives from its hunks).
	Severity    result.Severity `json:"severity,omitempty"`
	Description string          `json:"description,omitempty"`
}

// Formats a corpus can be read in.
const (
	FormatJSONL = "jsonl"
	FormatAACR  = "aacr"
)

// Formats lists the corpus formats ReadCorpus reads.
var Formats = []string{FormatJSONL, FormatAACR}

// CorpusError is a corpus that cannot be read: which file, which line (0
// when the format has none) and what is wrong, in one line.
type CorpusError struct {
	File string
	Line int
	Err  error
}

func (e *CorpusError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("corpus %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("corpus %s: %v", e.File, e.Err)
}

func (e *CorpusError) Unwrap() error { return e.Err }

// ReadCorpus reads the cases of a corpus in format (FormatJSONL when "")
// from r; name is the file it came from, for errors. Every case is checked:
// the first that cannot be run is a *CorpusError.
func ReadCorpus(r io.Reader, name, format string) ([]Case, error) {
	switch format {
	case "", FormatJSONL:
		return readJSONL(r, name)
	case FormatAACR:
		return readAACR(r, name)
	}
	return nil, fmt.Errorf("unknown corpus format %q: use %s", format, strings.Join(Formats, " or "))
}

// readJSONL reads one case a line; blank lines and lines starting with #
// or // are skipped.
func readJSONL(r io.Reader, name string) ([]Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var cases []Case
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		var c Case
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, &CorpusError{name, n, jsonProblem(err)}
		}
		if dec.More() {
			return nil, &CorpusError{name, n, errors.New("more than one JSON value on the line: give one case a line")}
		}
		if err := c.check(); err != nil {
			return nil, &CorpusError{name, n, err}
		}
		if at, ok := seen[c.ID]; ok {
			return nil, &CorpusError{name, n, fmt.Errorf("case id %q is already used on line %d", c.ID, at)}
		}
		seen[c.ID] = n
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, &CorpusError{name, n + 1, err}
	}
	if len(cases) == 0 {
		return nil, &CorpusError{File: name, Err: errors.New("no cases in it")}
	}
	return cases, nil
}

// jsonProblem words a decoding error for a person editing the line.
func jsonProblem(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s must be a %s, not a JSON %s", te.Field, te.Type, te.Value)
	}
	if s := err.Error(); strings.HasPrefix(s, "json: unknown field ") {
		return fmt.Errorf("unknown field %s: a case has id, repo, base, head, revert_of, clean, description, language and expected", strings.TrimPrefix(s, "json: unknown field "))
	}
	return fmt.Errorf("not a JSON object: %v", err)
}

// idForm is what a case ID may hold: it names files and appears in
// command lines.
var idForm = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// shaForm is a commit named by its full or abbreviated hexadecimal name.
var shaForm = lazy.Regexp(`^[0-9a-fA-F]{7,64}$`)

// check reports the first thing about c that cannot be run, and fills in
// what a case may leave out: its head, and each expected issue's end line.
func (c *Case) check() error {
	if err := c.checkFields(); err != nil {
		return err
	}
	if c.Head == "" && c.RevertOf == "" {
		c.Head = "HEAD"
	}
	for i := range c.Expected {
		if err := c.Expected[i].check(fmt.Sprintf("case %s: expected[%d]", c.ID, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkFields reports the first of c's own fields, its expected issues
// aside, that cannot be run.
func (c *Case) checkFields() error {
	switch {
	case c.ID == "":
		return errors.New(`the case has no "id"`)
	case !idForm().MatchString(c.ID):
		return fmt.Errorf("case id %q: use letters, digits, '.', '_' and '-' (at most 128)", c.ID)
	case strings.TrimSpace(c.Repo) == "":
		return fmt.Errorf("case %s has no \"repo\": give a local path or a git URL", c.ID)
	case c.RevertOf != "" && (c.Base != "" || c.Head != ""):
		return fmt.Errorf("case %s gives revert_of and base/head: revert_of builds its own change, give one or the other", c.ID)
	case c.RevertOf != "" && !shaForm().MatchString(c.RevertOf):
		return fmt.Errorf("case %s: revert_of %q is not a commit hash: name the fix commit by its SHA", c.ID, c.RevertOf)
	case c.RevertOf == "" && c.Base == "":
		return fmt.Errorf("case %s has neither base nor revert_of: name the revision to review against, or the fix commit to revert", c.ID)
	case c.Clean && len(c.Expected) > 0:
		return fmt.Errorf("case %s is clean but expects %d issue(s): a clean change expects none", c.ID, len(c.Expected))
	case !c.Clean && c.RevertOf == "" && len(c.Expected) == 0:
		return fmt.Errorf("case %s expects no issue: list them in \"expected\", or mark the case \"clean\": true", c.ID)
	case strings.ContainsAny(c.Description, "\r\n"):
		return fmt.Errorf("case %s: the description must be one line", c.ID)
	case IsURL(c.Repo) && !safeURL(c.Repo):
		return fmt.Errorf("case %s: repo %q: give an https, http, ssh, git or file URL, or user@host:path", c.ID, c.Repo)
	}
	return nil
}

// check reports what is wrong with an expected issue, named at in the
// error; it gives a one-line issue its end line, and its severity in the
// form the results use.
func (e *Expected) check(at string) error {
	if e.EndLine == 0 {
		e.EndLine = e.StartLine
	}
	switch {
	case strings.TrimSpace(e.Path) == "":
		return fmt.Errorf("%s has no path", at)
	case e.StartLine < 1:
		return fmt.Errorf("%s: start_line must be 1 or more, not %d", at, e.StartLine)
	case e.EndLine < e.StartLine:
		return fmt.Errorf("%s: end_line %d is before start_line %d", at, e.EndLine, e.StartLine)
	}
	if e.Severity != "" {
		s, err := result.ParseSeverity(string(e.Severity))
		if err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		e.Severity = s
	}
	return nil
}

// IsURL reports whether a case's repo names a remote repository to clone
// rather than a local path.
func IsURL(repo string) bool {
	if strings.Contains(repo, "://") {
		return true
	}
	// scp-like: git@host:owner/name
	at, colon := strings.Index(repo, "@"), strings.Index(repo, ":")
	return at > 0 && colon > at && !strings.Contains(repo[:colon], "/")
}

// safeURL reports whether a repository URL uses a transport that only
// fetches: a corpus is data, and git's ext:: and other remote helpers
// run commands.
func safeURL(repo string) bool {
	scheme, _, ok := strings.Cut(repo, "://")
	if !ok {
		return !strings.HasPrefix(repo, "-") // scp-like
	}
	switch strings.ToLower(scheme) {
	case "https", "http", "ssh", "git", "file":
		return true
	}
	return false
}
