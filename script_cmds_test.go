package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/internal/redact/redacttest"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/review/scripttest"
)

func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"samerequests": cmdSameRequests,
		"waitreq":      cmdWaitReq,
		"schema":       cmdSchema,
		"appendonly":   cmdAppendOnly,
		"nosecret":     cmdNoSecret,
		"nosecrets":    cmdNoSecrets,
		"secretforms":  cmdSecretForms,
		"replaymatch":  cmdReplayMatch,
		"runid":        cmdRunID,
		"nogit":        cmdNoGit,
		"exits":        cmdExits,
		"history":      cmdHistory,
		"smaller":      cmdSmaller,
		"ref":          cmdRef,
		"perm":         cmdPerm,
		"jsonget":      cmdJSONGet,
		"capture":      cmdCapture,
		"printable":    cmdPrintable,
		"genrepo":      cmdGenRepo,
		"fits":         cmdFits,
		"atmost":       cmdAtMost,
		"storesize":    cmdStoreSize,
		"windowfits":   cmdWindowFits,
		"explores":     cmdExplores,
		"maxtokens":    cmdMaxTokens,
		"prunefits":    cmdPruneFits,
		"figurecheck":  cmdFigureCheck,
		"overlap":      cmdOverlap,
		"nomore":       cmdNoMore,
		"sameprefix":   cmdSamePrefix,
		"perchar":      cmdPerChar,
	}
	maps.Copy(cmds, hostCmds())
	maps.Copy(cmds, scripttest.Cmds())
	return cmds
}

// perchar checks that every message of a dry run (its JSON) counts as
// the scripted llama.cpp server counts: a token a character of its
// content, and the framing of a message: `perchar file`. ! perchar
// checks that none does.
func cmdPerChar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: perchar file")
	}
	var d struct {
		Messages []struct {
			Tokens  int    `json:"tokens"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &d); err != nil || len(d.Messages) == 0 {
		ts.Fatalf("%s: no dry run's messages (%v)", args[0], err)
	}
	same := 0
	for i, m := range d.Messages {
		want := utf8.RuneCountInString(m.Content) + 4
		fmt.Fprintf(ts.Stdout(), "message %d: %d tokens, %d a character\n", i+1, m.Tokens, want)
		if m.Tokens == want {
			same++
		}
	}
	switch {
	case !neg && same < len(d.Messages):
		ts.Fatalf("%d of %d messages are not counted a token a character", len(d.Messages)-same, len(d.Messages))
	case neg && same > 0:
		ts.Fatalf("%d of %d messages are counted a token a character", same, len(d.Messages))
	}
}

// genrepo builds, in the current directory, a repository whose branch
// feature, checked out, changes n files against main, as
// reviewtest.GenerateRepo describes: `genrepo [-renames r] n`.
func cmdGenRepo(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("genrepo", flag.ContinueOnError)
	renames := fl.Int("renames", 0, "files renamed with an edit")
	if neg || fl.Parse(args) != nil || fl.NArg() != 1 {
		ts.Fatalf("usage: genrepo [-renames r] n")
	}
	n, err := strconv.Atoi(fl.Arg(0))
	ts.Check(err)
	ts.Check(reviewtest.GenerateRepo(ts.MkAbs("."), n, *renames, scripttest.Environ(ts)))
}

// overlap reads the timings the scripted server recorded in dir and
// prints the requests, the most in flight at once and the answer-waits in
// sequence (reviewtest.Overlap): `overlap [-inflight n] [-most n]
// [-waits n] [-pause status:d] dir`. -inflight fails unless at least n
// requests were in flight at once, -most unless at most n were, -waits unless there were at most n answer-waits in
// sequence, and -pause if a request arrived within d after an answer
// with status (50 ms of slack after the answer: requests already on their
// way). The figures come from the server's records, not from a timer
// around the run, so a slow machine cannot make them flaky.
func cmdOverlap(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("overlap", flag.ContinueOnError)
	inflight := fl.Int("inflight", 0, "requests in flight at once, at least")
	waits := fl.Int("waits", 0, "answer-waits in sequence, at most")
	most := fl.Int("most", 0, "requests in flight at once, at most")
	pause := fl.String("pause", "", "status:duration with no request after such an answer")
	if neg || fl.Parse(args) != nil || fl.NArg() != 1 {
		ts.Fatalf("usage: overlap [-inflight n] [-most n] [-waits n] [-pause status:d] dir")
	}
	tms, err := reviewtest.ReadTimings(ts.MkAbs(fl.Arg(0)))
	ts.Check(err)
	in, w := reviewtest.Overlap(tms)
	ts.Logf("%d requests, at most %d in flight at once, %d answer-waits in sequence", len(tms), in, w)
	if *inflight > 0 && in < *inflight {
		ts.Fatalf("at most %d requests in flight at once, want %d or more", in, *inflight)
	}
	if *most > 0 && in > *most {
		ts.Fatalf("%d requests in flight at once, want %d at most", in, *most)
	}
	if *waits > 0 && w > *waits {
		ts.Fatalf("%d answer-waits in sequence, want %d at most", w, *waits)
	}
	if *pause != "" {
		st, d, ok := strings.Cut(*pause, ":")
		status, err1 := strconv.Atoi(st)
		dur, err2 := time.ParseDuration(d)
		if !ok || err1 != nil || err2 != nil {
			ts.Fatalf("-pause %s: want status:duration, e.g. 429:1s", *pause)
		}
		for _, a := range tms {
			if a.Status != status {
				continue
			}
			for _, r := range tms {
				if r.Arrived.After(a.Answered.Add(50*time.Millisecond)) && r.Arrived.Before(a.Answered.Add(dur)) {
					ts.Fatalf("request %d arrived %v after the %d answer to request %d, within %v", r.N, r.Arrived.Sub(a.Answered), status, a.N, dur)
				}
			}
		}
	}
}

// nomore checks that the requests recorded in dir a add up to no more
// bytes than those in dir b, or than percent more when given, and prints
// both: `nomore a b [percent]`.
func cmdNoMore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: nomore a b [percent]")
	}
	total := func(dir string) (n int64, files int) {
		for _, f := range requestFiles(ts, dir) {
			st, err := os.Stat(f)
			ts.Check(err)
			n += st.Size()
			files++
		}
		return n, files
	}
	a, na := total(args[0])
	b, nb := total(args[1])
	ts.Logf("%s: %d requests, %d bytes; %s: %d requests, %d bytes", args[0], na, a, args[1], nb, b)
	most := b
	if len(args) == 3 {
		pct, err := strconv.ParseFloat(strings.TrimSuffix(args[2], "%"), 64)
		ts.Check(err)
		most = b + int64(float64(b)*pct/100)
	}
	if a > most {
		ts.Fatalf("%s sent %d bytes, more than the %d of %s (%d allowed)", args[0], a, b, args[1], most)
	}
}

// sameprefix checks that every request recorded in dir starts with the
// same first n messages and offers the same tools, byte for byte (the
// static layer a provider's prompt cache keeps): `sameprefix dir n`.
func cmdSamePrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sameprefix dir n")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var first []byte
	for _, f := range requestFiles(ts, args[0]) {
		data, err := os.ReadFile(f)
		ts.Check(err)
		var req struct {
			Messages []json.RawMessage `json:"messages"`
			Tools    json.RawMessage   `json:"tools"`
		}
		ts.Check(json.Unmarshal(data, &req))
		if len(req.Messages) < n {
			ts.Fatalf("%s: %d messages, fewer than %d", f, len(req.Messages), n)
		}
		prefix, err := json.Marshal([]any{req.Messages[:n], req.Tools})
		ts.Check(err)
		if first == nil {
			first = prefix
		} else if !bytes.Equal(first, prefix) {
			ts.Fatalf("%s: its first %d messages or its tools differ from the first request's", f, n)
		}
	}
}

// fits checks that every request recorded in dir, counted as review
// counts with the estimate tokenizer (messages and tool definitions), is
// at most max tokens, and with -total that all of them together are at
// most total, counted so or as the scripted server bills them (a token
// for four bytes), whichever is more: `fits [-total n] dir max`. It prints
// each request's count.
func cmdFits(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("fits", flag.ContinueOnError)
	total := fl.Int("total", 0, "bound on all requests together")
	if neg || fl.Parse(args) != nil || fl.NArg() != 2 {
		ts.Fatalf("usage: fits [-total n] dir max")
	}
	limit, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	files := requestFiles(ts, fl.Arg(0))
	if len(files) == 0 {
		ts.Fatalf("no requests in %s", fl.Arg(0))
	}
	sum := 0
	counter, err := conversation.NewCounter("", conversation.Estimate)
	ts.Check(err)
	for i, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		req, err := wire.DecodeRequest(data)
		if err != nil {
			ts.Fatalf("%s: %v", f, err)
		}
		msgs := req.Conversation()
		// The definitions as sent, an independent check of the count
		// the review makes of them.
		defs := make([]*wire.Function, len(req.Tools))
		for k, t := range req.Tools {
			defs[k] = t.Function
		}
		tools, err := json.Marshal(defs)
		ts.Check(err)
		n := counter.CountMessages(msgs) + counter.Count(string(tools))
		fmt.Fprintf(ts.Stdout(), "request %d: %d tokens\n", i+1, n)
		if n > limit {
			ts.Fatalf("request %d counts %d tokens, over %d", i+1, n, limit)
		}
		sum += max(n, (len(data)+3)/4)
	}
	fmt.Fprintf(ts.Stdout(), "all requests: %d tokens\n", sum)
	if *total > 0 && sum > *total {
		ts.Fatalf("the requests count %d tokens in all, over %d", sum, *total)
	}
}

// atmost checks that a number in a JSON file is at most a bound, given as
// a number or as another path in the file: `atmost file path bound`.
// Paths are keys and array indexes joined by dots.
func cmdAtMost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: atmost file path bound")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	number := func(p string) float64 {
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			return f
		}
		var got []float64
		walkJSON(doc, strings.Split(p, "."), nil, func(_ []string, v any) {
			if f, ok := v.(float64); ok {
				got = append(got, f)
			}
		})
		if len(got) != 1 {
			ts.Fatalf("%s: %s is not one number", args[0], p)
		}
		return got[0]
	}
	a, b := number(args[1]), number(args[2])
	fmt.Fprintf(ts.Stdout(), "%s = %g, %s = %g\n", args[1], a, args[2], b)
	if a > b {
		ts.Fatalf("%s is %g, over %s (%g)", args[1], a, args[2], b)
	}
}

// waitreq waits until the recording directory holds n requests:
// `waitreq dir n`. It lets a script act while review is mid-run.
func cmdWaitReq(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitreq dir n")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	// A guard against a run that never sends them, far above a busy
	// machine's time.
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		got, _ := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), "req-*.json"))
		if len(got) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("timed out waiting for %d requests in %s", n, args[0])
}

// schema validates JSON files (a directory stands for its recorded
// requests): `schema openai-request file|dir...` checks chat
// completion request bodies, `schema sarif file...` SARIF 2.1.0 logs,
// `schema codequality file...` GitLab Code Quality reports, all against the
// schemas vendored in testdata/schemas.
func cmdSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: schema openai-request|sarif|codequality file...")
	}
	var validate func([]byte) error
	switch args[0] {
	case "openai-request":
		validate = reviewtest.ValidateRequest
	case "sarif":
		validate = schemaFile(ts, reviewtest.SARIFSchema)
	case "codequality":
		validate = schemaFile(ts, reviewtest.CodeQualitySchema)
	default:
		ts.Fatalf("unknown schema %q", args[0])
	}
	var files []string
	for _, a := range args[1:] {
		if st, err := os.Stat(ts.MkAbs(a)); err == nil && st.IsDir() {
			files = append(files, requestFiles(ts, a)...)
			continue
		}
		files = append(files, ts.MkAbs(a))
	}
	if len(files) == 0 {
		ts.Fatalf("no files to validate")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		err = validate(data)
		switch {
		case err != nil && !neg:
			ts.Fatalf("%s: %v", f, err)
		case err == nil && neg:
			ts.Fatalf("%s: valid, want invalid", f)
		}
	}
}

// schemaFile compiles a schema vendored in testdata/schemas into a
// validator of JSON documents.
func schemaFile(ts *testscript.TestScript, name string) func([]byte) error {
	path, err := reviewtest.SchemaPath(name)
	ts.Check(err)
	sch, err := jsonschema.NewCompiler().Compile(path)
	ts.Check(err)
	return func(b []byte) error {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err != nil {
			return err
		}
		return sch.Validate(v)
	}
}

// requestFiles lists the recorded request bodies in dir, in order.
func requestFiles(ts *testscript.TestScript, dir string) []string {
	files, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), "req-*.json"))
	ts.Check(err)
	return files
}

func wireMessages(ts *testscript.TestScript, file string) []wire.Message {
	data, err := os.ReadFile(file)
	ts.Check(err)
	req, err := wire.DecodeRequest(data)
	if err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	return req.Messages
}

// appendonly checks that each recorded request of a tool loop starts with
// every message of the request before it, byte for byte:
// `appendonly dir [first last]` (request numbers, default all).
func cmdAppendOnly(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 && len(args) != 3 {
		ts.Fatalf("usage: appendonly dir [first last]")
	}
	files := requestFiles(ts, args[0])
	first, last := 1, len(files)
	if len(args) == 3 {
		var err error
		first, err = strconv.Atoi(args[1])
		ts.Check(err)
		last, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	var failure string
	for i := first; i < last && failure == ""; i++ {
		prev, next := wireMessages(ts, files[i-1]), wireMessages(ts, files[i])
		if len(next) <= len(prev) {
			failure = fmt.Sprintf("request %d has %d messages, request %d had %d", i+1, len(next), i, len(prev))
			break
		}
		for j := range prev {
			a, _ := json.Marshal(prev[j])
			b, _ := json.Marshal(next[j])
			if !bytes.Equal(a, b) {
				failure = fmt.Sprintf("request %d rewrote message %d of request %d:\n%s\n%s", i+1, j+1, i, a, b)
				break
			}
		}
	}
	switch {
	case failure != "" && !neg:
		ts.Fatalf("%s", failure)
	case failure == "" && neg:
		ts.Fatalf("requests %d to %d are append-only", first, last)
	}
}

// nosecret fails if any file under dir contains the secret:
// `nosecret dir secret`.
func cmdNoSecret(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nosecret dir secret")
	}
	secret := []byte(args[1])
	files := 0
	err := filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, secret) {
			ts.Fatalf("%s contains the secret", p)
		}
		return nil
	})
	ts.Check(err)
	if files == 0 {
		ts.Fatalf("no files under %s", args[0])
	}
}

// secretforms writes the secret forms of redacttest, a line each, to a
// file, and their secrets, a line each, to another: `secretforms forms
// secrets [template out]...`. Each template is written to its out with
// {{form N}}, {{secret N}} and {{placeholder N}} (1-based) replaced by
// that form's text, that secret or the placeholder redaction writes for
// it, escaped as in a JSON string, or as they are with " raw" after N
// ({{form N raw}}). The script's files then hold no secret whole.
func cmdSecretForms(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args)%2 != 0 {
		ts.Fatalf("usage: secretforms forms secrets [template out]...")
	}
	forms := redacttest.Forms()
	var b strings.Builder
	for _, f := range forms {
		b.WriteString(f.Text + "\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	secrets := redacttest.Secrets()
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(secrets), 0o644))
	list := strings.Fields(secrets)
	slot := regexp.MustCompile(`\{\{(form|secret|placeholder) (\d+)( raw)?\}\}`)
	red := redact.New(redact.Options{})
	for i := 2; i < len(args); i += 2 {
		tmpl, err := os.ReadFile(ts.MkAbs(args[i]))
		ts.Check(err)
		out := slot.ReplaceAllStringFunc(string(tmpl), func(m string) string {
			sm := slot.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sm[2])
			var v string
			switch {
			case sm[1] == "form" && n >= 1 && n <= len(forms):
				v = forms[n-1].Text
			case sm[1] == "secret" && n >= 1 && n <= len(list):
				v = list[n-1]
			case sm[1] == "placeholder" && n >= 1 && n <= len(list):
				_, ms := red.Redact(list[n-1])
				if len(ms) != 1 {
					ts.Fatalf("%s: secret %d is not one secret: %d matches", args[i], n, len(ms))
				}
				v = ms[0].Placeholder
			default:
				ts.Fatalf("%s: no %s", args[i], m)
			}
			if sm[3] != "" {
				return v
			}
			q, _ := json.Marshal(v)
			return string(q[1 : len(q)-1])
		})
		ts.Check(os.WriteFile(ts.MkAbs(args[i+1]), []byte(out), 0o644))
	}
}

// nosecrets fails if any file under the directories contains one of the
// secrets a file lists, a line each: `nosecrets secrets dir...`.
func cmdNoSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: nosecrets secrets dir...")
	}
	list, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	secrets := strings.Fields(string(list))
	if len(secrets) == 0 {
		ts.Fatalf("%s lists no secret", args[0])
	}
	for _, dir := range args[1:] {
		files := 0
		err := filepath.WalkDir(ts.MkAbs(dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, s := range secrets {
				if bytes.Contains(data, []byte(s)) {
					ts.Fatalf("%s contains the secret %.6s…", p, s)
				}
			}
			return nil
		})
		ts.Check(err)
		if files == 0 {
			ts.Fatalf("no files under %s", dir)
		}
	}
}

// replaymatch checks that `review replay --json` output holds, for every
// step, the request body the server received, byte for byte:
// `replaymatch [-unordered] replay.json dir`. Units side by side send at
// once, so their requests may reach the server in another order than
// their steps are numbered in: -unordered matches each step with a
// request of its own in any order.
func cmdReplayMatch(ts *testscript.TestScript, neg bool, args []string) {
	unordered := len(args) > 0 && args[0] == "-unordered"
	if unordered {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: replaymatch [-unordered] replay.json dir")
	}
	var r struct {
		Steps []struct {
			Request json.RawMessage `json:"request"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &r); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	files := requestFiles(ts, args[1])
	if len(r.Steps) != len(files) {
		ts.Fatalf("replay has %d steps, the server received %d requests", len(r.Steps), len(files))
	}
	bodies := make([][]byte, len(files))
	for i, f := range files {
		got, err := os.ReadFile(f)
		ts.Check(err)
		bodies[i] = got
	}
	for i, st := range r.Steps {
		if !unordered {
			if !bytes.Equal(bodies[i], st.Request) {
				ts.Fatalf("step %d: replay request differs from what the server received", i+1)
			}
			continue
		}
		j := slices.IndexFunc(bodies, func(b []byte) bool { return b != nil && bytes.Equal(b, st.Request) })
		if j < 0 {
			ts.Fatalf("step %d: replay request is none of the requests the server received", i+1)
		}
		bodies[j] = nil
	}
}

var runIDPattern = regexp.MustCompile(`run ([0-9]{8}-[0-9]{6}-[a-z0-9]+)`)

// runid sets $RUN to the run ID the last command printed on stderr, and
// $RUNSUFFIX to its random part.
func cmdRunID(ts *testscript.TestScript, neg bool, args []string) {
	m := runIDPattern.FindStringSubmatch(ts.ReadFile("stderr"))
	if m == nil {
		ts.Fatalf("no run ID in stderr")
	}
	ts.Setenv("RUN", m[1])
	ts.Setenv("RUNSUFFIX", m[1][strings.LastIndexByte(m[1], '-')+1:])
}

// nogit drops every directory holding a git executable from $PATH, so a
// script can see what review does on a machine without git.
func cmdNoGit(ts *testscript.TestScript, neg bool, args []string) {
	var keep []string
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "git")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	ts.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
}

// exits runs a command and checks its exit code: `exits 2 review --bogus`.
// Its stdout and stderr are kept for the next stdout/stderr checks.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits code command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

var refPattern = regexp.MustCompile(`stored as ref ([0-9]+)`)

// ref sets $NAME to the tool-memory ref that `review tool` printed on the
// last stderr: `ref NAME`.
func cmdRef(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ref NAME")
	}
	m := refPattern.FindStringSubmatch(ts.ReadFile("stderr"))
	if m == nil {
		ts.Fatalf("no ref in stderr")
	}
	ts.Setenv(args[0], m[1])
}

// perm checks the permission bits of files and directories:
// `perm 0700 dir` or `perm -files 0600 dir` (every regular file in dir).
func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	files := len(args) > 0 && args[0] == "-files"
	if files {
		args = args[1:]
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: perm [-files] mode path...")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	check := func(p string) {
		st, err := os.Stat(p)
		ts.Check(err)
		if got := st.Mode().Perm(); got != fs.FileMode(want) {
			ts.Fatalf("%s has mode %#o, want %#o", p, got, want)
		}
	}
	for _, a := range args[1:] {
		if !files {
			check(ts.MkAbs(a))
			continue
		}
		entries, err := os.ReadDir(ts.MkAbs(a))
		ts.Check(err)
		n := 0
		for _, e := range entries {
			if e.Type().IsRegular() {
				check(filepath.Join(ts.MkAbs(a), e.Name()))
				n++
			}
		}
		if n == 0 {
			ts.Fatalf("no files in %s", a)
		}
	}
}

// history checks the earlier turns each recorded request carries against
// the history limits: `history [-except n,...] dir questions.txt turns
// chars`. questions.txt holds, one a line, how each turn's user message
// starts, in turn order. In a request, the earlier turns are the messages
// after the static layer (the system prompt, then the diff context) and the
// summary, up to the current turn's message (the last that starts like a
// question). They must hold at most turns questions and chars characters,
// counted as the pruner counts (content, tool names and arguments); and once
// the first turn is gone, a summary must stand in for it. -except skips
// requests that are not turns of the conversation (a summary request).
func cmdHistory(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("history", flag.ContinueOnError)
	except := fl.String("except", "", "comma-separated request numbers to skip")
	if err := fl.Parse(args); err != nil || fl.NArg() != 4 {
		ts.Fatalf("usage: history [-except n,...] dir questions.txt turns chars")
	}
	var questions []string
	for _, l := range strings.Split(ts.ReadFile(fl.Arg(1)), "\n") {
		if strings.TrimSpace(l) != "" {
			questions = append(questions, l)
		}
	}
	maxTurns, err := strconv.Atoi(fl.Arg(2))
	ts.Check(err)
	maxChars, err := strconv.Atoi(fl.Arg(3))
	ts.Check(err)
	skip := map[int]bool{}
	for _, s := range strings.Split(*except, ",") {
		if s != "" {
			n, err := strconv.Atoi(s)
			ts.Check(err)
			skip[n] = true
		}
	}
	var failure string
	for i, f := range requestFiles(ts, fl.Arg(0)) {
		if skip[i+1] {
			continue
		}
		turns, chars, msg := checkHistory(wireMessages(ts, f), questions)
		ts.Logf("request %d: %d earlier turns, %d chars", i+1, turns, chars)
		switch {
		case msg != "":
		case turns > maxTurns:
			msg = fmt.Sprintf("%d earlier turns, limit %d", turns, maxTurns)
		case chars > maxChars:
			msg = fmt.Sprintf("%d characters of earlier turns, limit %d", chars, maxChars)
		}
		if msg != "" {
			failure = fmt.Sprintf("request %d: %s", i+1, msg)
			break
		}
	}
	switch {
	case failure != "" && !neg:
		ts.Fatalf("%s", failure)
	case failure == "" && neg:
		ts.Fatalf("every request is within %d earlier turns and %d characters", maxTurns, maxChars)
	}
}

// checkHistory measures the earlier turns of one request, or says what is
// wrong with its layers.
func checkHistory(msgs []wire.Message, questions []string) (turns, chars int, problem string) {
	text := func(m wire.Message) string { return m.Content }
	turnOf := func(m wire.Message) int {
		if m.Role != "user" {
			return -1
		}
		for i, q := range questions {
			if strings.HasPrefix(text(m), q) {
				return i
			}
		}
		return -1
	}
	if len(msgs) < 3 || msgs[0].Role != "system" || msgs[1].Role != "user" || !strings.HasPrefix(text(msgs[1]), "# Changes under review") {
		return 0, 0, "the static layer (system prompt, diff context) does not open the request"
	}
	cur := -1
	for i := 2; i < len(msgs); i++ {
		if turnOf(msgs[i]) >= 0 {
			cur = i
		}
	}
	if cur < 0 {
		return 0, 0, "no message starts like a question of questions.txt"
	}
	start, summary := 2, false
	if start < cur && msgs[start].Role == "user" && turnOf(msgs[start]) < 0 {
		start, summary = start+1, true
	}
	first := turnOf(msgs[cur])
	if start < cur {
		if first = turnOf(msgs[start]); first < 0 {
			return 0, 0, fmt.Sprintf("message %d starts the earlier turns but is no question", start+1)
		}
	}
	for _, m := range msgs[start:cur] {
		if turnOf(m) >= 0 {
			turns++
		}
		chars += utf8.RuneCountInString(text(m))
		for _, c := range m.ToolCalls {
			chars += utf8.RuneCountInString(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
		}
	}
	if first > 0 && !summary {
		return turns, chars, fmt.Sprintf("turns before turn %d were dropped, but no summary stands in for them", first+1)
	}
	return turns, chars, ""
}

// smaller checks that the first file has fewer bytes than the second:
// `smaller a b`.
func cmdSmaller(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: smaller a b")
	}
	a, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	if (a.Size() < b.Size()) == neg {
		ts.Fatalf("%s has %d bytes, %s %d", args[0], a.Size(), args[1], b.Size())
	}
}

// jsonget prints values of a JSON file, one `path: value` line each, for
// the stdout checks that follow: `jsonget file path...`. A path is keys and
// array indexes joined by dots; `*` stands for every element or value and
// `#` for the length of an array or object. Values print as compact JSON.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonget file path...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for _, p := range args[1:] {
		n := 0
		walkJSON(doc, strings.Split(p, "."), nil, func(path []string, v any) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // keep "<" and ">" readable for patterns
			ts.Check(enc.Encode(v))
			fmt.Fprintf(ts.Stdout(), "%s: %s", strings.Join(path, "."), b.String())
			n++
		})
		if n == 0 {
			ts.Fatalf("%s: nothing at %s", args[0], p)
		}
	}
}

func walkJSON(v any, rest, at []string, fn func([]string, any)) {
	if len(rest) == 0 {
		fn(at, v)
		return
	}
	key, rest := rest[0], rest[1:]
	here := func(k string) []string { return append(append([]string(nil), at...), k) }
	switch v := v.(type) {
	case []any:
		switch key {
		case "#":
			walkJSON(len(v), rest, here(key), fn)
		case "*":
			for i, e := range v {
				walkJSON(e, rest, here(strconv.Itoa(i)), fn)
			}
		default:
			if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(v) {
				walkJSON(v[i], rest, here(key), fn)
			}
		}
	case map[string]any:
		switch key {
		case "#":
			walkJSON(len(v), rest, here(key), fn)
		case "*":
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walkJSON(v[k], rest, here(k), fn)
			}
		default:
			if e, ok := v[key]; ok {
				walkJSON(e, rest, here(key), fn)
			}
		}
	}
}

// capture sets $NAME to the last command's standard output, trimmed:
// `capture NAME`.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture NAME")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// printable checks that the last command's stdout or stderr, or a file, is
// safe to print to a terminal and to a GitHub Actions log: no control
// character but tab and line breaks, no escape sequence, and no line the
// runner would run as a workflow command. The runner splits at "\n", "\r"
// and "\r\n", trims leading white space, and runs a line starting "::";
// it also runs "##[" anywhere in a line not starting "::". -commands N
// allows N "::" lines (the github format's own annotations):
// `printable [-commands N] stdout|stderr|file`.
func cmdPrintable(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("printable", flag.ContinueOnError)
	commands := fs.Int("commands", 0, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: printable [-commands N] stdout|stderr|file")
	}
	name := fs.Arg(0)
	data := ts.ReadFile(name)
	if !utf8.ValidString(data) {
		ts.Fatalf("%s: invalid UTF-8", name)
	}
	for _, r := range data {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r <= 0x9f {
			ts.Fatalf("%s: control character %U in %q", name, r, data)
		}
	}
	n := 0
	for _, line := range strings.FieldsFunc(data, func(r rune) bool { return r == '\n' || r == '\r' }) {
		cmd := strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::")
		if cmd {
			n++
		}
		if strings.Contains(line, "##[") && !cmd {
			ts.Fatalf("%s: a legacy workflow command in %q", name, line)
		}
	}
	if n != *commands {
		ts.Fatalf("%s: %d workflow command lines, want %d:\n%s", name, n, *commands, data)
	}
}

// storesize checks that the files under dir take at most max KiB of disk
// (allocated blocks, as du counts them: Badger's value logs are sparse,
// so their apparent size says little), and prints it: `storesize dir max`.
func cmdStoreSize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: storesize dir maxKiB")
	}
	limit, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	kib, err := scripttest.DiskKiB(ts.MkAbs(args[0]))
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s: %d KiB on disk\n", args[0], kib)
	if kib > limit {
		ts.Fatalf("%s takes %d KiB on disk, over %d", args[0], kib, limit)
	}
}

// samerequests checks that two recordings of the same conversation sent
// the same requests, byte for byte, once what differs by design between
// two runs is named alike: run IDs and refs (which hash the run ID), and
// times: `samerequests dirA dirB`.
func cmdSameRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samerequests dirA dirB")
	}
	read := func(dir string) []string {
		files, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), "req-*.json"))
		ts.Check(err)
		sort.Strings(files)
		var out []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			ts.Check(err)
			out = append(out, normalRequest(string(b)))
		}
		return out
	}
	a, b := read(args[0]), read(args[1])
	if len(a) != len(b) || len(a) == 0 {
		ts.Fatalf("%s holds %d requests, %s %d", args[0], len(a), args[1], len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			j := 0
			for j < len(a[i]) && j < len(b[i]) && a[i][j] == b[i][j] {
				j++
			}
			lo := max(j-120, 0)
			ts.Fatalf("request %d differs at byte %d:\n%s\n%s", i+1, j, a[i][lo:min(j+120, len(a[i]))], b[i][lo:min(j+120, len(b[i]))])
		}
	}
	ts.Logf("samerequests: %d requests, identical but for run IDs and refs", len(a))
}

var (
	runIDNormal = regexp.MustCompile(`\b\d{8}-\d{6}-[a-z2-7]{6}\b`)
	refNormal   = regexp.MustCompile(`\b\d{12}\b`)
)

// normalRequest names a request's run IDs and refs alike.
func normalRequest(s string) string {
	return refNormal.ReplaceAllString(runIDNormal.ReplaceAllString(s, "RUN"), "REF")
}
