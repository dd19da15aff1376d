package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// aacrPR is one pull request of AACR-Bench, as its README documents the
// data format: the PR's URL, the target (base) and source (head) commits,
// and the annotated review comments, each on a path and a range of lines
// of one side of the diff.
type aacrPR struct {
	ChangeLineCount int    `json:"change_line_count"`
	Language        string `json:"project_main_language"`
	SourceCommit    string `json:"source_commit"`
	TargetCommit    string `json:"target_commit"`
	PRURL           string `json:"githubPrUrl"`
	Comments        []struct {
		AI       bool   `json:"is_ai_comment"`
		Note     string `json:"note"`
		Path     string `json:"path"`
		Side     string `json:"side"`
		Model    string `json:"source_model"`
		FromLine int    `json:"from_line"`
		ToLine   int    `json:"to_line"`
		Category string `json:"category"`
		Context  string `json:"context"`
	} `json:"comments"`
}

// readAACR reads AACR-Bench's published form: one JSON array of pull
// requests. Each becomes a case reviewing target_commit..source_commit in
// the PR's repository; each comment on the new side (side "right", or
// none) becomes an expected issue. Comments on the old side name lines
// the change removed, which no finding on the new version can match: they
// are left out, and the case's description says how many.
func readAACR(r io.Reader, name string) ([]Case, error) {
	var prs []aacrPR
	dec := json.NewDecoder(r)
	if err := dec.Decode(&prs); err != nil {
		return nil, &CorpusError{File: name, Err: fmt.Errorf("not AACR-Bench's format (a JSON array of pull requests): %v", err)}
	}
	if len(prs) == 0 {
		return nil, &CorpusError{File: name, Err: errors.New("no pull requests in it")}
	}
	var cases []Case
	seen := map[string]bool{}
	for i, pr := range prs {
		at := fmt.Sprintf("pull request %d", i+1)
		repo, num, err := splitPRURL(pr.PRURL)
		if err != nil {
			return nil, &CorpusError{File: name, Err: fmt.Errorf("%s: githubPrUrl %q: %v", at, pr.PRURL, err)}
		}
		id := strings.NewReplacer("/", "-", ".", "-").Replace(strings.TrimPrefix(repo, "https://github.com/")) + "-" + num
		if seen[id] {
			return nil, &CorpusError{File: name, Err: fmt.Errorf("%s: %s appears twice", at, pr.PRURL)}
		}
		seen[id] = true
		c := Case{ID: id, Repo: repo, Base: pr.TargetCommit, Head: pr.SourceCommit, Language: strings.ToLower(pr.Language), Expected: []Expected{}}
		left := 0
		for _, cm := range pr.Comments {
			if s := strings.ToLower(cm.Side); s != "" && s != "right" && s != "new" {
				left++
				continue
			}
			from, to := cm.FromLine, cm.ToLine
			if from <= 0 {
				from = to
			}
			if to < from {
				to = from
			}
			c.Expected = append(c.Expected, Expected{Path: cm.Path, StartLine: from, EndLine: to, Description: oneLine(cm.Note)})
		}
		c.Description = fmt.Sprintf("AACR-Bench %s", pr.PRURL)
		if left > 0 {
			c.Description += fmt.Sprintf(" (%d comment(s) on removed lines left out)", left)
		}
		if len(c.Expected) == 0 {
			c.Clean = true
		}
		if c.Base == "" || c.Head == "" {
			return nil, &CorpusError{File: name, Err: fmt.Errorf("%s (%s): target_commit and source_commit are both needed", at, pr.PRURL)}
		}
		if err := c.check(); err != nil {
			return nil, &CorpusError{File: name, Err: fmt.Errorf("%s (%s): %v", at, pr.PRURL, err)}
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// splitPRURL splits https://github.com/owner/name/pull/12 into the
// repository's URL and the number.
func splitPRURL(s string) (repo, num string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", "", errors.New("not a pull request URL")
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || (parts[2] != "pull" && parts[2] != "pulls") || parts[3] == "" {
		return "", "", errors.New("not of the form https://HOST/OWNER/NAME/pull/N")
	}
	return u.Scheme + "://" + u.Host + "/" + parts[0] + "/" + parts[1], parts[3], nil
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
