package redact

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The corpus under testdata/corpus holds files as a repository holds them,
// one folder per kind, each file at its path in the repository:
//
//   - docs: API documentation, a README, reference pages and examples
//     with passwords, tokens and keys for show (moby's "hunter2" and
//     identity token among them);
//   - fixtures: test data and tests with made-up credentials;
//   - certs: certificates, whole, in JSON and in a Kubernetes ConfigMap;
//   - checksums: go.sum, vendor.sum and Bazel's sums of Go modules whose
//     paths say auth, key, secret and credentials;
//   - minified: minified JavaScript and CSS with a search box's public
//     key;
//   - positives: secrets committed in code and configuration, which must
//     all be found and reported.
//
// The secrets of positives are written @@rule@@ in the files, so that no
// file of the repository holds one whole, and made here.

// corpusCounts are what a kind of the corpus gave.
type corpusCounts struct {
	Files int
	// Redacted is the texts redacted (hidden from the model), Reported
	// those the review reports as findings (see reported), Critical those
	// of high confidence among them.
	Redacted, Reported, Critical int
}

// wantCorpus holds the false-alarm rate: nothing in documentation,
// fixtures, certificates, checksums or minified code is reported, and
// certificates and checksums are not even redacted; every committed secret
// is reported, those of a known format as critical. docs/secrets.md
// states these counts.
var wantCorpus = map[string]corpusCounts{
	"docs":      {Files: 6, Redacted: 16, Reported: 0, Critical: 0},
	"fixtures":  {Files: 5, Redacted: 17, Reported: 0, Critical: 0},
	"certs":     {Files: 3, Redacted: 0, Reported: 0, Critical: 0},
	"checksums": {Files: 3, Redacted: 0, Reported: 0, Critical: 0},
	"minified":  {Files: 3, Redacted: 7, Reported: 0, Critical: 0},
	"positives": {Files: 5, Redacted: 11, Reported: 11, Critical: 8},
}

// reported is the review's rule for reporting a secret (review's
// leakFindings and allowLeaks): a low-confidence secret in documentation,
// a test fixture or minified code is only redacted.
func reported(m Match) bool {
	return !m.Guard && (m.Confidence == High || m.Setting == "")
}

// corpusSecrets are the secrets of the positives, by the rule that finds
// them.
func corpusSecrets() map[string]string {
	upper27 := "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	digits := "0123456789"
	lower := "abcdefghijklmnopqrstuvwxyz0123456789"
	return map[string]string{
		"aws-access-token":    "AKIA" + fake(11, upper27, 16),
		"github-pat":          githubToken,
		"slack-bot-token":     "xoxb-" + fake(12, digits, 10) + "-" + fake(13, digits, 13) + "-" + fake(14, alnum, 24),
		"stripe-access-token": stripeKey,
		"sendgrid-api-token":  "SG." + fake(15, alnum, 22) + "." + fake(16, alnum, 43),
		"gcp-api-key":         "AIza" + fake(17, alnum, 35),
		"npm-access-token":    "npm_" + fake(18, lower, 36),
		"private-key":         pemKey(),
	}
}

var corpusToken = regexp.MustCompile(`@@([a-z0-9-]+)@@`)

func TestCorpus(t *testing.T) {
	secrets := corpusSecrets()
	r := New(Options{})
	got := map[string]corpusCounts{}
	root := filepath.Join("testdata", "corpus")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		kind, path, _ := strings.Cut(filepath.ToSlash(rel), "/")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := corpusToken.ReplaceAllStringFunc(string(data), func(tok string) string {
			s, ok := secrets[strings.Trim(tok, "@")]
			if !ok {
				t.Fatalf("%s: no secret for %s", p, tok)
			}
			return s
		})
		out, ms := r.RedactFile(path, text)
		c := got[kind]
		c.Files++
		for _, m := range ms {
			c.Redacted++
			if reported(m) {
				c.Reported++
				if m.Confidence == High {
					c.Critical++
				}
			}
			if testing.Verbose() {
				t.Logf("%s: %s line %d %s %s%s", kind, path, m.Line, m.Rule, m.Confidence, map[bool]string{true: ", reported"}[reported(m)])
			}
		}
		got[kind] = c
		if kind == "positives" {
			for _, tok := range corpusToken.FindAllString(string(data), -1) {
				s := secrets[strings.Trim(tok, "@")]
				for _, line := range strings.Split(strings.TrimSpace(s), "\n")[1:] {
					if strings.Contains(out, line) {
						t.Errorf("%s: %s is left in the text", path, tok)
					}
				}
				if !strings.Contains(s, "\n") && strings.Contains(out, s) {
					t.Errorf("%s: %s is left in the text", path, tok)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for k := range got {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var table strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&table, "%-10s %+v\n", k, got[k])
	}
	t.Logf("corpus:\n%s", table.String())
	for k, want := range wantCorpus {
		if got[k] != want {
			t.Errorf("%s: %+v, want %+v", k, got[k], want)
		}
	}
	if len(got) != len(wantCorpus) {
		t.Errorf("kinds %v, want those of wantCorpus", kinds)
	}
}
