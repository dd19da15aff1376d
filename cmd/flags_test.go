package cmd

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// These tests hold what each command makes of its flags and arguments, and
// of the CI variables that give defaults, without running anything: the
// command's runF receives the options it would run with (as in the GitHub
// CLI's TestNewCmdX).

// parseFlags builds a command with newCmd in the environment env, runs it
// on args and returns the options its runF received, or the error that
// stopped it before.
func parseFlags[T any](t *testing.T, newCmd func(*Factory, func(*T) error) *cobra.Command, env map[string]string, args ...string) (*T, error) {
	t.Helper()
	f := &Factory{
		IO:     &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv: func(k string) string { return env[k] },
	}
	var got *T
	c := newCmd(f, func(o *T) error { got = o; return nil })
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	c.SetFlagErrorFunc(flagError)
	if err := c.Execute(); err != nil {
		return nil, err
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	return got, nil
}

// checkParse checks the outcome of parseFlags: an error whose text holds
// wantErr (always a usage error), or options that check accepts.
func checkParse[T any](t *testing.T, got *T, err error, wantErr string, check func(*T) string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) || exitCode(err) != ExitUsage {
			t.Fatalf("err = %v (exit %d), want a usage error with %q", err, exitCode(err), wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if msg := check(got); msg != "" {
		t.Error(msg)
	}
}

var (
	githubPR = map[string]string{"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "release"}
	gitlabMR = map[string]string{"CI": "true", "GITLAB_CI": "true", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "dev"}
)

func envWith(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestNewCmdReview(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		args    string
		wantErr string
		check   func(*ReviewOptions) string
	}{
		{name: "base", args: "--base main", check: func(o *ReviewOptions) string {
			if o.Base != "main" || o.Head != "HEAD" || o.DryRun || o.Format != "" || o.Post != "" || o.ci != (ciEnv{}) {
				return "want base main, head HEAD, no dry run, format or post, not in CI"
			}
			return ""
		}},
		{name: "no base", args: "", wantErr: "--base is required"},
		{name: "GitHub pull request", env: githubPR, check: func(o *ReviewOptions) string {
			if o.Base != "origin/release" || o.ci.Host != "github" || !o.ci.On {
				return "want base origin/release from GITHUB_BASE_REF, in GitHub Actions"
			}
			return ""
		}},
		{name: "GitLab merge request", env: gitlabMR, check: func(o *ReviewOptions) string {
			if o.Base != "origin/dev" || o.ci.Host != "gitlab" {
				return "want base origin/dev from CI_MERGE_REQUEST_TARGET_BRANCH_NAME, in GitLab CI"
			}
			return ""
		}},
		{name: "flag over CI", env: githubPR, args: "--base main", check: func(o *ReviewOptions) string {
			if o.Base != "main" {
				return "--base main must win over GITHUB_BASE_REF"
			}
			return ""
		}},
		{name: "CI=false", env: envWith(githubPR, "CI", "false"), wantErr: "--base is required"},
		{name: "GitHub push", env: envWith(githubPR, "GITHUB_BASE_REF", ""), wantErr: "--base is required"},
		{name: "outputs", args: "--base main --head topic --dry-run --format json -o a.json --output sarif=b.sarif --post github --since none --fail-on high,unreviewed --jobs 3 --model m", check: func(o *ReviewOptions) string {
			if o.Head != "topic" || !o.DryRun || o.Format != "json" || strings.Join(o.Outputs, " ") != "a.json sarif=b.sarif" ||
				o.Post != "github" || o.Since != "none" || o.FailOn != "high,unreviewed" || o.Jobs != 3 || o.Model != "m" {
				return "flags not all in the options"
			}
			return ""
		}},
		{name: "gitlab flags", args: "--base main --post gitlab --gitlab-url https://g/api/v4 --gitlab-project a/b --gitlab-mr 7", check: func(o *ReviewOptions) string {
			if f := o.hostFlags.values(); f["gitlab-url"] != "https://g/api/v4" || f["gitlab-project"] != "a/b" || f["gitlab-mr"] != "7" {
				return "gitlab flags not in the options"
			}
			return ""
		}},
		{name: "argument", args: "--base main extra", wantErr: "unknown command"},
		{name: "bad flag value", args: "--base main --jobs x", wantErr: `--jobs must be a whole number, got "x"`},
		{name: "window in k", args: "--base main --context-window 128k", wantErr: `--context-window must be a whole number, got "128k": write it in digits, as in --context-window 128000`},
		{name: "budget in M", args: "--base main --prompt-budget=3M", wantErr: `--prompt-budget must be a whole number, got "3M": write it in digits, as in --prompt-budget 3000000`},
		{name: "bad number", args: "--base main --max-cost 1,5", wantErr: `--max-cost must be a number, got "1,5"`},
		{name: "bad bool", args: "--base main --stream=maybe", wantErr: `--stream must be true or false, got "maybe"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseFlags(t, NewCmdReview, c.env, strings.Fields(c.args)...)
			checkParse(t, got, err, c.wantErr, c.check)
		})
	}
}

func TestNewCmdAsk(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
		check   func(*AskOptions) string
	}{
		{name: "run", args: []string{"20261122-153012-k3f9", "why is this a race?"}, check: func(o *AskOptions) string {
			if o.RunID != "20261122-153012-k3f9" || o.Question != "why is this a race?" || o.Base != "" || o.Summarize != "rules" || o.Head != "HEAD" {
				return "want the run and question, summaries by rules"
			}
			return ""
		}},
		{name: "base", args: []string{"--base", "main", "what breaks?"}, check: func(o *AskOptions) string {
			if o.RunID != "" || o.Base != "main" || o.Question != "what breaks?" {
				return "want a new run against main"
			}
			return ""
		}},
		{name: "in CI", env: githubPR, args: []string{"--base", "main", "q", "--summarize", "model", "--format", "json", "-o", "a.json"}, check: func(o *AskOptions) string {
			if !o.ci.On || o.Summarize != "model" || o.Format != "json" || o.Output != "a.json" {
				return "want CI, model summaries, json to a.json"
			}
			return ""
		}},
		{name: "no base in CI", env: githubPR, args: []string{"q"}, wantErr: "ask needs a run ID"},
		{name: "both", args: []string{"--base", "main", "run", "q"}, wantErr: "not both"},
		{name: "empty question", args: []string{"run", "  "}, wantErr: "the question is empty"},
		{name: "bad summarize", args: []string{"run", "q", "--summarize", "x"}, wantErr: `unknown --summarize "x"`},
		{name: "no arguments", wantErr: "accepts between 1 and 2"},
		{name: "post a reply", env: gitlabMR, args: []string{"run", "q", "--post", "gitlab", "--reply-to", "0123456789abcdef0123456789abcdef01234567", "--gitlab-mr", "7"}, check: func(o *AskOptions) string {
			if o.Post != "gitlab" || o.ReplyTo != "0123456789abcdef0123456789abcdef01234567" || o.hostFlags.values()["gitlab-mr"] != "7" || o.ci.Host != "gitlab" {
				return "want the answer posted in the discussion of merge request 7, in GitLab CI"
			}
			return ""
		}},
		{name: "reply without post", args: []string{"run", "q", "--reply-to", "12"}, wantErr: "--reply-to needs --post"},
		{name: "bad reply-to", args: []string{"run", "q", "--post", "github", "--reply-to", "abc"}, wantErr: "not a GitHub review comment's ID"},
		{name: "unknown host", args: []string{"run", "q", "--post", "gerrit"}, wantErr: `unknown --post "gerrit"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseFlags(t, NewCmdAsk, c.env, c.args...)
			checkParse(t, got, err, c.wantErr, c.check)
		})
	}
}

func TestNewCmdReplay(t *testing.T) {
	const id = "20261122-153012-k3f9"
	for _, c := range []struct {
		name             string
		args             string
		wantErr          string
		format, out, run string
		step             int
	}{
		{name: "text", args: id, format: "text", run: id},
		{name: "step", args: id + " --step 3", format: "text", run: id, step: 3},
		{name: "json", args: id + " --json", format: "json", run: id},
		{name: "format json to a file", args: id + " --format json -o r.json", format: "json", out: "r.json", run: id},
		{name: "html to a file", args: id + " --html page.html", format: "html", out: "page.html", run: id},
		{name: "html first", args: "--html page.html k3f9", format: "html", out: "page.html", run: "k3f9"},
		{name: "html=file", args: "--html=page " + id, format: "html", out: "page", run: id},
		{name: "html to stdout", args: id + " --html", format: "html", run: id},
		{name: "html alone with output", args: id + " --html -o p.html", format: "html", out: "p.html", run: id},
		{name: "format html", args: id + " --format html", format: "html", run: id},
		{name: "html and output", args: id + " --html a.html -o b.html", wantErr: "both name the file"},
		{name: "two runs", args: id + " other", wantErr: "one run ID"},
		{name: "page without --html", args: id + " page.html", wantErr: "one run ID"},
		{name: "json and html", args: id + " --json --format html", wantErr: "different outputs"},
		{name: "step of json", args: id + " --step 2 --json", wantErr: "--step shows one step"},
		{name: "negative step", args: id + " --step -1", wantErr: "--step must be"},
		{name: "unknown format", args: id + " --format yaml", wantErr: `unknown replay format "yaml"`},
		{name: "no run", args: "", wantErr: "accepts between 1 and 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseFlags(t, NewCmdReplay, nil, strings.Fields(c.args)...)
			checkParse(t, got, err, c.wantErr, func(o *ReplayOptions) string {
				if o.Format != c.format || o.Output != c.out || o.RunID != c.run || o.Step != c.step {
					return "got format " + o.Format + ", output " + o.Output + ", run " + o.RunID + "; want " + c.format + ", " + c.out + ", " + c.run
				}
				return ""
			})
		})
	}
}

func TestNewCmdRuns(t *testing.T) {
	got, err := parseFlags(t, NewCmdRuns, nil)
	checkParse(t, got, err, "", func(o *RunsOptions) string {
		if o.JSON || o.All || o.Store != "" {
			return "want the defaults: text, reviews only, the default store"
		}
		return ""
	})
	got, err = parseFlags(t, NewCmdRuns, nil, "--json", "--all", "--store", "s")
	checkParse(t, got, err, "", func(o *RunsOptions) string {
		if !o.JSON || !o.All || o.Store != "s" {
			return "want --json, --all and --store s"
		}
		return ""
	})
	_, err = parseFlags(t, NewCmdRuns, nil, "x")
	checkParse(t, got, err, "unknown command", nil)
}

func TestNewCmdTool(t *testing.T) {
	got, err := parseFlags(t, NewCmdTool, nil, "list_project_files")
	checkParse(t, got, err, "", func(o *ToolOptions) string {
		if o.Name != "list_project_files" || o.Args != "{}" || o.Head != "HEAD" || o.Base != "" || o.Full {
			return "want the tool with {} and the defaults"
		}
		return ""
	})
	got, err = parseFlags(t, NewCmdTool, nil, "read_file_hunk", `{"path": "a"}`, "--base", "main", "--full")
	checkParse(t, got, err, "", func(o *ToolOptions) string {
		if o.Args != `{"path": "a"}` || o.Base != "main" || !o.Full {
			return "want the arguments, --base main and --full"
		}
		return ""
	})
}

func TestNewCmdComment(t *testing.T) {
	got, err := parseFlags(t, NewCmdComment, envWith(githubPR, "GITHUB_EVENT_NAME", "issue_comment"), "--model", "m")
	checkParse(t, got, err, "", func(o *CommentOptions) string {
		if o.ci.Host != "github" || o.Model != "m" {
			return "want GitHub Actions and the model flag"
		}
		return ""
	})
	got, err = parseFlags(t, NewCmdComment, envWith(gitlabMR, "CI", "false"))
	checkParse(t, got, err, "", func(o *CommentOptions) string {
		if o.ci != (ciEnv{}) {
			return "CI=false is not CI, GitLab's variables or not"
		}
		return ""
	})
	_, err = parseFlags(t, NewCmdComment, nil, "x")
	checkParse(t, got, err, "unknown command", nil)
}
