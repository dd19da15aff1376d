package action

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// release is fake releases of review as .goreleaser.yaml lays them out:
// an archive per platform holding a stand-in binary, and a checksums file.
type release struct {
	files  map[string][]byte // path under the download URL → content
	latest string            // the newest release; none when empty
	mu     sync.Mutex
	got    []string // paths requested
}

// stub is the stand-in binary: a script that says which archive it came
// from.
func stub(name string) []byte {
	return []byte("#!/bin/sh\necho 'review from " + name + "'\n")
}

// newRelease makes the releases of versions, the last the newest.
func newRelease(t *testing.T, versions ...string) *release {
	t.Helper()
	r := &release{files: map[string][]byte{}}
	for _, version := range versions {
		num := strings.TrimPrefix(version, "v")
		var sums strings.Builder
		for _, os := range []string{"linux", "darwin", "windows"} {
			for _, arch := range []string{"amd64", "arm64"} {
				base := fmt.Sprintf("review_%s_%s_%s", num, os, arch)
				var name string
				var data []byte
				if os == "windows" {
					name = base + ".zip"
					data = zipOf(t, "review.exe", stub(name))
				} else {
					name = base + ".tar.gz"
					data = tarGzOf(t, "review", stub(name))
				}
				r.files["/"+version+"/"+name] = data
				fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(data), name)
			}
		}
		r.files["/"+version+"/review_"+num+"_checksums.txt"] = []byte(sums.String())
		r.latest = version
	}
	return r
}

// ServeHTTP answers as github.com does under /releases: download/TAG/FILE
// is a release's file, latest redirects to tag/TAG, the newest release's
// page (to the list of releases when there is none).
func (r *release) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	r.mu.Lock()
	r.got = append(r.got, p)
	data, ok := r.files[strings.TrimPrefix(p, "/releases/download")]
	latest := r.latest
	r.mu.Unlock()
	switch {
	case strings.HasPrefix(p, "/releases/download/") && ok:
		w.Write(data)
	case p == "/releases/latest" && latest != "":
		http.Redirect(w, req, "/releases/tag/"+latest, http.StatusFound)
	case p == "/releases/latest":
		http.Redirect(w, req, "/releases", http.StatusFound)
	case p == "/releases" || strings.HasPrefix(p, "/releases/tag/"):
		fmt.Fprintln(w, "<!doctype html><title>Releases</title>")
	default:
		http.NotFound(w, req)
	}
}

func tarGzOf(t *testing.T, name string, content []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("# review\n")}, {name, content}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipOf(t *testing.T, name string, content []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(content)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestActionInstall runs the action's install script against a local file
// server standing in for GitHub releases: it fetches the archive of the
// runner's platform, checks it against the checksums file, unpacks the
// binary and puts it on the job's PATH; a damaged or missing archive fails
// with one line and installs nothing.
func TestActionInstall(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar", "unzip", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	rel := newRelease(t, "v1.4.0")
	srv := httptest.NewServer(rel)
	defer srv.Close()

	run := func(t *testing.T, env ...string) (out string, dir string, path string, err error) {
		t.Helper()
		tmp := t.TempDir()
		ghPath := filepath.Join(tmp, "github_path")
		cmd := exec.Command("bash", "action/install.sh")
		cmd.Env = append([]string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + tmp,
			"RUNNER_TEMP=" + tmp, "GITHUB_PATH=" + ghPath,
			"REVIEW_DOWNLOAD_URL=" + srv.URL + "/releases/download/",
		}, env...)
		b, err := cmd.CombinedOutput()
		p, _ := os.ReadFile(ghPath)
		return string(b), filepath.Join(tmp, "review-1.4.0"), strings.TrimSpace(string(p)), err
	}

	for _, tc := range []struct {
		os, arch, asset, exe string
	}{
		{"Linux", "X64", "review_1.4.0_linux_amd64.tar.gz", "review"},
		{"Linux", "ARM64", "review_1.4.0_linux_arm64.tar.gz", "review"},
		{"macOS", "ARM64", "review_1.4.0_darwin_arm64.tar.gz", "review"},
		{"Windows", "X64", "review_1.4.0_windows_amd64.zip", "review.exe"},
	} {
		t.Run(tc.os+"-"+tc.arch, func(t *testing.T) {
			out, dir, path, err := run(t, "REVIEW_VERSION=v1.4.0", "RUNNER_OS="+tc.os, "RUNNER_ARCH="+tc.arch)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if path != dir {
				t.Errorf("GITHUB_PATH has %q, want %q", path, dir)
			}
			if !strings.Contains(out, "review: installed v1.4.0 ("+tc.asset+", sha256 checked)") {
				t.Errorf("output:\n%s", out)
			}
			got, err := exec.Command(filepath.Join(dir, tc.exe)).Output()
			if err != nil || string(got) != "review from "+tc.asset+"\n" {
				t.Errorf("the installed binary says %q (%v)", got, err)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.asset)); err == nil {
				t.Error("the archive was left beside the binary")
			}
		})
	}

	// Failures: one ::error line, nothing on the PATH.
	damaged := "/v1.4.0/review_1.4.0_linux_amd64.tar.gz"
	good := rel.files[damaged]
	for _, tc := range []struct {
		name  string
		env   []string
		setup func()
		want  string
	}{
		{"damaged archive", []string{"REVIEW_VERSION=v1.4.0"}, func() { rel.files[damaged] = append(append([]byte(nil), good...), 0) },
			"::error title=review install::review_1.4.0_linux_amd64.tar.gz does not match its checksum in review_1.4.0_checksums.txt"},
		{"not in the checksums", []string{"REVIEW_VERSION=v1.4.0"}, func() {
			rel.files["/v1.4.0/review_1.4.0_checksums.txt"] = []byte(strings.ReplaceAll(string(rel.files["/v1.4.0/review_1.4.0_checksums.txt"]), "linux_amd64", "linux_amd65"))
		}, "::error title=review install::review_1.4.0_checksums.txt of v1.4.0 does not list review_1.4.0_linux_amd64.tar.gz"},
		{"no such release", []string{"REVIEW_VERSION=v9.9.9"}, nil,
			"::error title=review install::cannot download " + srv.URL + "/releases/download/v9.9.9/review_9.9.9_checksums.txt: is v9.9.9 a release of review?"},
		{"no release yet", nil, func() { rel.latest = "" },
			"::error title=review install::no release of review found at " + srv.URL + "/releases/latest (it led to " + srv.URL + "/releases)"},
		{"not a version", []string{"REVIEW_VERSION=main"}, nil, `::error title=review install::version "main" is not a release version such as v1.2.3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The server reads the files under the lock.
			rel.mu.Lock()
			saved, latest := map[string][]byte{}, rel.latest
			for k, v := range rel.files {
				saved[k] = v
			}
			if tc.setup != nil {
				tc.setup()
			}
			rel.mu.Unlock()
			defer func() {
				rel.mu.Lock()
				rel.files, rel.latest = saved, latest
				rel.mu.Unlock()
			}()
			out, _, path, err := run(t, append(tc.env, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")...)
			if err == nil {
				t.Fatalf("installed:\n%s", out)
			}
			if !strings.HasPrefix(out, tc.want) && !strings.Contains(out, "\n"+tc.want) {
				t.Errorf("output:\n%s\nwant a line starting %q", out, tc.want)
			}
			if path != "" {
				t.Errorf("GITHUB_PATH has %q after a failure", path)
			}
		})
	}
}

// TestActionPinning runs the action's install step as each way of pinning
// the action would, against a local file server with two releases (v1.4.0
// the newest): at a release tag the action installs that release; at a
// major tag (@v1, which the release workflow moves), a commit SHA, a
// branch or as a local action it installs the version input's release,
// latest by default, the newest. A composite action may see no
// github.action_ref: the ref is then read from its directory,
// _actions/OWNER/REPO/REF on a runner.
func TestActionPinning(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	script := actionStep(t, "install")
	rel := newRelease(t, "v1.3.0", "v1.4.0")
	srv := httptest.NewServer(rel)
	defer srv.Close()
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	installer, err := os.ReadFile(filepath.Join("action", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}

	run := func(t *testing.T, actionPath string, vars ...string) (out, installed string, err error) {
		t.Helper()
		tmp := t.TempDir()
		ghPath := filepath.Join(tmp, "github_path")
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append([]string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + tmp,
			"RUNNER_TEMP=" + tmp, "GITHUB_PATH=" + ghPath, "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
			"BUILD=false", "ACTION_PATH=" + actionPath,
			"REVIEW_DOWNLOAD_URL=" + srv.URL + "/releases/download",
		}, vars...)
		b, err := cmd.CombinedOutput()
		if p, _ := os.ReadFile(ghPath); len(p) > 0 {
			got, _ := exec.Command(filepath.Join(strings.TrimSpace(string(p)), "review")).Output()
			installed = strings.TrimSpace(string(got))
		}
		return string(b), installed, err
	}
	from := func(version string) string {
		return "review from review_" + strings.TrimPrefix(version, "v") + "_linux_amd64.tar.gz"
	}

	// As a runner lays out an action used at @v1.3.0, with no ref given.
	runnerPath := filepath.Join(t.TempDir(), "_actions", "reviewdev", "review", "v1.3.0")
	if err := os.MkdirAll(filepath.Join(runnerPath, "action"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runnerPath, "action", "install.sh"), installer, 0o755); err != nil {
		t.Fatal(err)
	}

	sha := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name, path, ref, version string
		want, says               string
	}{
		{"release tag", repo, "v1.3.0", "latest", "v1.3.0", "installing v1.3.0, the action's tag (the action runs at v1.3.0)"},
		{"major tag", repo, "v1", "latest", "v1.4.0", "installing v1.4.0, the newest release (the action runs at v1)"},
		{"commit SHA", repo, sha, "latest", "v1.4.0", "installing v1.4.0, the newest release (the action runs at " + sha + ")"},
		{"branch", repo, "main", "latest", "v1.4.0", "installing v1.4.0, the newest release (the action runs at main)"},
		{"local action", repo, "", "latest", "v1.4.0", "installing v1.4.0, the newest release\n"},
		{"version input empty", repo, "main", "", "v1.4.0", "installing v1.4.0, the newest release"},
		{"major tag, version pinned", repo, "v1", "v1.3.0", "v1.3.0", "installing v1.3.0, the version input (the action runs at v1)"},
		{"SHA, version without v", repo, sha, "1.3.0", "v1.3.0", "installing v1.3.0, the version input"},
		{"release tag, another version asked for", repo, "v1.3.0", "v1.4.0", "v1.4.0", "installing v1.4.0, the version input"},
		{"ref from the action's directory", runnerPath, "", "latest", "v1.3.0", "installing v1.3.0, the action's tag (the action runs at v1.3.0)"},
		{"major tag behind the newest release", repo, "v2", "latest", "v1.4.0",
			"::warning title=review install::the newest release is v1.4.0, of v1, but the action runs at v2: set its version input to a v2 release"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, installed, err := run(t, tc.path, "ACTION_REF="+tc.ref, "VERSION="+tc.version)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if installed != from(tc.want) {
				t.Errorf("installed %q, want %s\n%s", installed, tc.want, out)
			}
			if !strings.Contains(out, tc.says) || !strings.Contains(out, "review: installed "+tc.want+" (") {
				t.Errorf("output does not say %q:\n%s", tc.says, out)
			}
		})
	}

	// Before the first release there is nothing to install but a build.
	rel.mu.Lock()
	rel.latest = ""
	rel.mu.Unlock()
	out, installed, err := run(t, repo, "ACTION_REF=v1", "VERSION=latest")
	if err == nil || installed != "" || !strings.Contains(out, "::error title=review install::no release of review found at "+srv.URL+"/releases/latest") ||
		!strings.Contains(out, "build-from-source: true") {
		t.Errorf("no release: %v, installed %q\n%s", err, installed, out)
	}
}

// actionStep returns the run script of the action's step with id.
func actionStep(t *testing.T, id string) string {
	t.Helper()
	raw, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatal(err)
	}
	for _, s := range action.Runs.Steps {
		if s.ID == id {
			return s.Run
		}
	}
	t.Fatalf("action.yml has no step %q", id)
	return ""
}

// TestActionReviewStep runs the action's review step, with a stand-in
// review that records its arguments, as each event would: a pull request
// (its head fetched from refs/pull/N/head when the checkout lacks it, as
// with pull_request_target, which checks out the base), a push (the pushed
// commits, for a code scanning baseline; nothing posted), a new branch and
// an event it does not serve.
func TestActionReviewStep(t *testing.T) {
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	script := actionStep(t, "review")
	dir := t.TempDir()
	env := []string{
		"PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + dir, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		"RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + filepath.Join(dir, "output"),
	}
	git := gitWith(t, env)
	// origin: main, and a pull request whose head is only under
	// refs/pull/7/head, as a fork's is.
	origin := filepath.Join(dir, "origin")
	git(dir, "init", "-q", "-b", "main", origin)
	os.WriteFile(filepath.Join(origin, "a.go"), []byte("package a\n"), 0o644)
	git(origin, "add", "-A")
	git(origin, "commit", "-qm", "base")
	base := git(origin, "rev-parse", "HEAD")
	git(origin, "checkout", "-qb", "fork")
	os.WriteFile(filepath.Join(origin, "b.go"), []byte("package a\n"), 0o644)
	git(origin, "add", "-A")
	git(origin, "commit", "-qm", "pr")
	head := git(origin, "rev-parse", "HEAD")
	git(origin, "update-ref", "refs/pull/7/head", head)
	git(origin, "checkout", "-q", "main")
	git(origin, "branch", "-qD", "fork")

	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "review"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$RUNNER_TEMP/args\"\n"), 0o755)

	run := func(t *testing.T, vars ...string) (args []string, out string, err error) {
		t.Helper()
		work := filepath.Join(t.TempDir(), "work")
		git(dir, "clone", "-q", origin, work)
		os.Remove(filepath.Join(dir, "args"))
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = work
		cmd.Env = append(append([]string{}, env...), vars...)
		b, err := cmd.CombinedOutput()
		a, _ := os.ReadFile(filepath.Join(dir, "args"))
		if s := strings.TrimSpace(string(a)); s != "" {
			args = strings.Split(s, "\n")
		}
		if err == nil {
			// The head the review was given is in the clone.
			if i := slices.Index(args, "--head"); i >= 0 {
				git(work, "cat-file", "-e", args[i+1]+"^{commit}")
			}
		}
		return args, string(b), err
	}
	common := []string{"FORMAT=github", "SARIF=false", "POST=true", "FAIL_ON="}
	for _, tc := range []struct {
		name string
		vars []string
		want string
	}{
		{"pull_request_target", []string{"EVENT=pull_request_target", "BASE_REF=main", "HEAD_SHA=" + head, "PR_NUMBER=7"},
			"--format github --base origin/main --head " + head + " --post github"},
		{"fail-on given", []string{"EVENT=pull_request", "BASE_REF=main", "HEAD_SHA=" + head, "PR_NUMBER=7", "FAIL_ON=high"},
			"--format github --base origin/main --head " + head + " --fail-on high --post github"},
		{"push", []string{"EVENT=push", "BEFORE=" + base},
			"--format github --base " + base},
		{"new branch", []string{"EVENT=push", "BEFORE=0000000000000000000000000000000000000000"},
			"--format github --base HEAD"},
		{"issue_comment", []string{"EVENT=issue_comment"}, "comment"},
		{"pull_request_review_comment", []string{"EVENT=pull_request_review_comment"}, "comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, out, err := run(t, append(append([]string{}, common...), tc.vars...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := strings.Join(args, " "); got != tc.want {
				t.Errorf("review %s\nwant    %s", got, tc.want)
			}
		})
	}
	_, out, err := run(t, append(common, "EVENT=workflow_dispatch")...)
	if err == nil || !strings.Contains(out, "::error title=review::review runs on pull_request, pull_request_target, push, issue_comment and pull_request_review_comment events, not workflow_dispatch") {
		t.Errorf("workflow_dispatch: %v\n%s", err, out)
	}
}

// TestGoreleaserConfig holds .goreleaser.yaml to what the action's install
// script and `review version` rely on: the six platforms, archives and a
// checksums file named as install.sh asks for them, zip on windows, LICENSE
// and README.md in every archive, and the version stamped into cmd.Version. (goreleaser check validates the
// rest where goreleaser is installed.)
func TestGoreleaserConfig(t *testing.T) {
	raw, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Binary  string   `yaml:"binary"`
			Env     []string `yaml:"env"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			Files           []string `yaml:"files"`
			NameTemplate    string   `yaml:"name_template"`
			Formats         []string `yaml:"formats"`
			FormatOverrides []struct {
				Goos    string   `yaml:"goos"`
				Formats []string `yaml:"formats"`
			} `yaml:"format_overrides"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 || len(cfg.Archives) != 1 {
		t.Fatalf("config %+v", cfg)
	}
	b := cfg.Builds[0]
	if b.Binary != "review" || !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) || !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("build %+v", b)
	}
	if !strings.Contains(strings.Join(b.Ldflags, " "), "-X github.com/reviewdev/review/cmd.Version=v{{ .Version }}") {
		t.Errorf("ldflags %v do not stamp cmd.Version", b.Ldflags)
	}
	a := cfg.Archives[0]
	script, err := os.ReadFile("action/install.sh")
	if err != nil {
		t.Fatal(err)
	}
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || !strings.Contains(string(script), `asset="review_${num}_${os}_${arch}.${ext}"`) {
		t.Errorf("archive names %q do not match install.sh's", a.NameTemplate)
	}
	if !slices.Equal(a.Formats, []string{"tar.gz"}) || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archive formats %+v", a)
	}
	// Nobody may use a binary without its licence: every archive has it
	// (goreleaser fails the release when a listed file is missing).
	if !slices.Contains(a.Files, "LICENSE") || !slices.Contains(a.Files, "README.md") {
		t.Errorf("archive files %v, want LICENSE and README.md", a.Files)
	}
	if cfg.Checksum.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_checksums.txt" || cfg.Checksum.Algorithm != "sha256" || !strings.Contains(string(script), `sums="review_${num}_checksums.txt"`) {
		t.Errorf("checksum %+v does not match install.sh's", cfg.Checksum)
	}
}

// TestCIDocWorkflows checks the workflows docs/ci.md gives to copy: YAML
// that parses, with what the CI section promises (a push baseline,
// concurrency, a timeout, actions: read; pull_request_target only for
// forks, with no step that could run the pull request's code; the
// conversation's workflow on comments, its store restored before the
// action and saved after, the model's key only for commenters who may
// run commands).
func TestCIDocWorkflows(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var workflows []string
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		if y, _, ok := strings.Cut(block, "\n```"); ok && strings.HasPrefix(y, "name: ") {
			workflows = append(workflows, y)
		}
	}
	if len(workflows) != 3 {
		t.Fatalf("%d workflows in docs/ci.md, want 3", len(workflows))
	}
	type step struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	}
	var wf [3]struct {
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency map[string]any    `yaml:"concurrency"`
		Jobs        map[string]struct {
			If             string `yaml:"if"`
			TimeoutMinutes int    `yaml:"timeout-minutes"`
			Steps          []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	for i, y := range workflows {
		if err := yaml.Unmarshal([]byte(y), &wf[i]); err != nil {
			t.Fatalf("workflow %d: %v\n%s", i, err, y)
		}
		job := wf[i].Jobs["review"]
		if wf[i].Concurrency["group"] == nil || job.TimeoutMinutes == 0 {
			t.Errorf("workflow %d: no concurrency group or timeout-minutes", i)
		}
		if wf[i].Permissions["pull-requests"] != "write" || wf[i].Permissions["contents"] != "read" {
			t.Errorf("workflow %d: permissions %v", i, wf[i].Permissions)
		}
		if i < 2 && (len(job.Steps) != 2 || !strings.HasPrefix(job.Steps[0].Uses, "actions/checkout@") || !strings.HasPrefix(job.Steps[1].Uses, "reviewdev/review@")) {
			t.Errorf("workflow %d: steps %+v", i, job.Steps)
		}
	}
	talk := wf[2]
	for _, ev := range []string{"pull_request_target", "issue_comment", "pull_request_review_comment"} {
		if _, ok := talk.On[ev]; !ok || len(talk.On) != 3 {
			t.Errorf("the conversation's workflow: on %v, want %s among three", talk.On, ev)
		}
	}
	var uses []string
	for _, st := range talk.Jobs["review"].Steps {
		uses = append(uses, strings.Split(st.Uses, "@")[0])
		if st.Run != "" && st.Run != "review gc --older-than 14d" || st.With["ref"] != "" {
			t.Errorf("the conversation's workflow runs or checks out the pull request: %+v", st)
		}
		if strings.HasPrefix(st.Uses, "reviewdev/review@") && !strings.Contains(st.With["api-key"], `contains(fromJSON('["OWNER", "MEMBER", "COLLABORATOR"]'), github.event.comment.author_association)`) {
			t.Errorf("the conversation's workflow gives the key to any commenter: %q", st.With["api-key"])
		}
	}
	if want := []string{"actions/checkout", "actions/cache/restore", "reviewdev/review", "", "actions/cache/save"}; !slices.Equal(uses, want) {
		t.Errorf("the conversation's workflow's steps %v, want %v", uses, want)
	}
	same, forks := wf[0], wf[1]
	if _, ok := same.On["push"]; !ok || same.Permissions["actions"] != "read" || same.Permissions["security-events"] != "write" {
		t.Errorf("the repository's workflow: on %v, permissions %v", same.On, same.Permissions)
	}
	if _, ok := forks.On["pull_request_target"]; !ok || len(forks.On) != 1 || !strings.Contains(forks.Jobs["review"].If, "!= github.repository") {
		t.Errorf("the forks' workflow: on %v, if %q", forks.On, forks.Jobs["review"].If)
	}
	for _, s := range forks.Jobs["review"].Steps {
		if s.Run != "" || s.With["ref"] != "" {
			t.Errorf("the forks' workflow runs or checks out the pull request: %+v", s)
		}
	}
}

// workflow is what the tests read of a workflow in .github/workflows.
type workflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		If    string            `yaml:"if"`
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	var wf workflow
	if err := yaml.Unmarshal(mustRead(t, filepath.Join(".github", "workflows", name)), &wf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return wf
}

// TestProjectWorkflows holds the project's own workflows to what they are
// for (TestActionlint checks that they are valid): CI runs .ci/run on
// pushes and pull requests with Go from go.mod and Node for npm; the
// review of the project's pull requests uses this action (uses: ./), on
// pull_request only, with the least permissions, and skips its steps when
// the secret is absent, as it is for forks.
func TestProjectWorkflows(t *testing.T) {
	ci := readWorkflow(t, "ci.yml")
	if _, ok := ci.On["push"]; !ok {
		t.Errorf("ci.yml: on %v, want push", ci.On)
	}
	if _, ok := ci.On["pull_request"]; !ok {
		t.Errorf("ci.yml: on %v, want pull_request", ci.On)
	}
	if len(ci.Permissions) != 1 || ci.Permissions["contents"] != "read" {
		t.Errorf("ci.yml: permissions %v, want contents: read", ci.Permissions)
	}
	var goFromMod, node, run bool
	for _, s := range ci.Jobs["test"].Steps {
		goFromMod = goFromMod || strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "go.mod"
		node = node || strings.HasPrefix(s.Uses, "actions/setup-node@")
		run = run || strings.TrimSpace(s.Run) == "bash .ci/run"
	}
	if !goFromMod || !node || !run {
		t.Errorf("ci.yml: Go from go.mod %v, Node %v, bash .ci/run %v", goFromMod, node, run)
	}

	rv := readWorkflow(t, "review.yml")
	if _, ok := rv.On["pull_request"]; !ok || len(rv.On) != 1 {
		t.Errorf("review.yml: on %v, want pull_request alone (pull_request_target would give a fork's code the secrets)", rv.On)
	}
	if len(rv.Permissions) != 2 || rv.Permissions["contents"] != "read" || rv.Permissions["pull-requests"] != "write" {
		t.Errorf("review.yml: permissions %v", rv.Permissions)
	}
	job := rv.Jobs["review"]
	if job.Env["HAS_KEY"] != "${{ secrets.OPENAI_API_KEY != '' }}" {
		t.Errorf("review.yml: HAS_KEY = %q", job.Env["HAS_KEY"])
	}
	var action bool
	for _, s := range job.Steps {
		switch {
		case strings.Contains(s.If, "env.HAS_KEY != 'true'"):
			// Says why nothing is reviewed.
		case !strings.Contains(s.If, "env.HAS_KEY == 'true'"):
			t.Errorf("review.yml: step %q runs without the key (if: %q)", s.Name+s.Uses, s.If)
		}
		if s.Uses == "./" {
			action = true
			if s.With["api-key"] != "${{ secrets.OPENAI_API_KEY }}" || s.With["build-from-source"] != "true" {
				t.Errorf("review.yml: the action is given %v", s.With)
			}
		}
	}
	if !action {
		t.Error("review.yml does not use the action (uses: ./)")
	}
}

// TestReleaseMovesMajorTag runs the release workflow's last step in a
// clone of a repository with releases: the major tag moves to a new
// release of its major version, and stays for a pre-release and for a
// patch of an older minor version.
func TestReleaseMovesMajorTag(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	var script string
	for _, s := range readWorkflow(t, "release.yml").Jobs["release"].Steps {
		if s.Name == "Move the major tag" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("release.yml has no step \"Move the major tag\"")
	}
	dir := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	git := gitWith(t, env)
	origin := filepath.Join(dir, "origin")
	git(dir, "init", "-q", "-b", "main", origin)
	commits := map[string]string{}
	tags := []string{"v1.2.0", "v1.3.0", "v1.2.9", "v1.4.0-rc.1", "v1.4.0", "v2.0.0-rc.1"}
	for _, tag := range tags {
		git(origin, "commit", "-q", "--allow-empty", "-m", tag)
		git(origin, "tag", "-a", "-m", tag, tag) // annotated, as releases are tagged
		commits[tag] = git(origin, "rev-parse", "HEAD")
	}
	git(origin, "tag", "v1", commits["v1.2.0"])
	work := filepath.Join(dir, "work")
	git(dir, "clone", "-q", origin, work)

	for _, tc := range []struct {
		tag, want string // want: the commit of the release v1 should be at
	}{
		{"v1.3.0", "v1.3.0"},      // the newest so far (v1.4.0 not yet tagged here)
		{"v1.2.9", "v1.3.0"},      // a patch of an older minor: v1 stays
		{"v1.4.0-rc.1", "v1.3.0"}, // a pre-release: v1 stays
		{"v1.4.0", "v1.4.0"},
		{"v2.0.0-rc.1", "v1.4.0"}, // the first of a major version, a pre-release: no v2 yet
	} {
		t.Run(tc.tag, func(t *testing.T) {
			// The clone has the tags up to this release, as when it was pushed.
			later := false
			for _, tag := range tags {
				if later {
					exec.Command("git", "-C", work, "tag", "-d", tag).Run()
				} else {
					git(work, "fetch", "-q", "origin", "+refs/tags/"+tag+":refs/tags/"+tag)
				}
				later = later || tag == tc.tag
			}
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir, cmd.Env = work, append(append([]string{}, env...), "TAG="+tc.tag)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := git(origin, "rev-parse", "v1^{commit}"); got != commits[tc.want] {
				t.Errorf("v1 is at %s, want %s's commit\n%s", got, tc.want, out)
			}
			if v2 := git(origin, "tag", "--list", "v2"); v2 != "" {
				t.Errorf("a pre-release made the major tag %s\n%s", v2, out)
			}
		})
	}
}

// gitWith returns a runner of git in a directory with exactly the
// environment env, failing t on an error, that returns git's output
// trimmed.
func gitWith(t *testing.T, env []string) func(wd string, args ...string) string {
	return func(wd string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = wd, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
