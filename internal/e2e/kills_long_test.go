package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/scripttest"
)

// TestLong runs the scripts of testdata/long, the checks too long for go
// test ./... (.ci/long sets REVIEW_LONG=1).
func TestLong(t *testing.T) {
	if os.Getenv("REVIEW_LONG") == "" {
		t.Skip("the long scripts run with REVIEW_LONG=1, as .ci/long sets it")
	}
	reviewBinary(t) // the scripts' review, on PATH
	cmds := scripttest.Cmds()
	cmds["killcampaign"] = cmdKillCampaign
	cmds["killmerges"] = cmdKillMerges
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/long",
		RequireExplicitExec: true,
		Setup:               scripttest.Setup,
		Cmds:                cmds,
		Condition:           scripttest.Condition,
	})
}

// campaign is the state of a kill campaign on one store.
type campaign struct {
	ts  *testscript.TestScript
	rnd *rand.Rand
	env []string
	// complete are the runs seen complete, with their start: each must
	// stay listed, complete, unless a gc that may drop it or a follow-up
	// of it started.
	complete map[string]time.Time
	// took is how long each kind of command ran when not killed, to
	// pick a kill time within it.
	took map[string]time.Duration

	rounds, completed, refused, lost int
	landed                           map[string]int
}

// killcampaign runs $REVIEW_KILL_ROUNDS (default 60) rounds of: a
// review, ask or gc killed at a random point; the first command after
// it, killed at a random point half of the time; then the checks (see
// kills.txtar). It prints one line of counts.
func cmdKillCampaign(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killcampaign")
	}
	c, rounds := newCampaign(ts, 1, "OPENAI_BASE_URL="+ts.Getenv("OPENAI_BASE_URL"))
	// A first review, whole, so that ask has a run to follow.
	c.run("review", c.argv("review"), 0)
	c.check()
	for range rounds {
		c.round()
	}
	fmt.Fprintf(ts.Stdout(), "%d rounds: %d kills landed (review %d, ask %d, gc %d, after a kill %d), %d runs completed; %d stores refused, %d runs lost\n",
		c.rounds, c.landed["review"]+c.landed["ask"]+c.landed["gc"]+c.landed["after"],
		c.landed["review"], c.landed["ask"], c.landed["gc"], c.landed["after"], c.completed, c.refused, c.lost)
}

// cmdKillMerges kills the command whose close merges the store's level 0:
// each round runs `review tool` five times, each leaving a table at level
// 0, then a sixth, which opens with five and so merges them as it closes,
// killed at a random point of its usual time; then doctor must find the
// store whole. That merge comes after the close has removed its
// write-ahead log, so a kill in it leaves tables the MANIFEST does not
// list and no log (toolmem's mergingLine). With the mark that tells them
// from a MANIFEST that lost tables ignored, one run of 60 rounds had the
// store refused as damaged from round 25 and another did not: the kill
// must land in the merge's few milliseconds. toolmem's
// TestMergeOnCloseMarked holds the state it leaves every time.
func cmdKillMerges(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killmerges")
	}
	c, rounds := newCampaign(ts, 2)
	for range rounds {
		c.rounds++
		for range 5 {
			c.run("tool", c.argv("tool"), 0)
		}
		c.kill("tool", "tool")
		c.check()
	}
	fmt.Fprintf(ts.Stdout(), "%d rounds: %d kills landed; %d stores refused, %d runs lost\n", c.rounds, c.landed["tool"], c.refused, c.lost)
}

// newCampaign starts a campaign in ts's work directory, its random
// stream stream seeded from the clock (the seed is logged), review's
// environment the script's plus env, and returns it with its rounds:
// REVIEW_KILL_ROUNDS, 60 unless set.
func newCampaign(ts *testscript.TestScript, stream uint64, env ...string) (*campaign, int) {
	rounds := 60
	if s := os.Getenv("REVIEW_KILL_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		ts.Check(err)
		rounds = n
	}
	seed := uint64(time.Now().UnixNano())
	ts.Logf("seed %d", seed)
	return &campaign{
		ts:       ts,
		rnd:      rand.New(rand.NewPCG(seed, stream)),
		env:      append(append(scripttest.Environ(ts), env...), "REVIEW_LOCK_WAIT=30s"),
		complete: map[string]time.Time{},
		took:     map[string]time.Duration{},
		landed:   map[string]int{},
	}, rounds
}

// argv is a command of the kind given.
func (c *campaign) argv(kind string) []string {
	switch kind {
	case "review":
		return []string{"--base", "main", "--max-steps", strconv.Itoa(1 + c.rnd.IntN(4))}
	case "ask":
		for id := range c.complete {
			return []string{"ask", id, "What is in big.txt?", "--max-steps", "2"}
		}
		return []string{"ask", "--base", "main", "What is in big.txt?", "--max-steps", "2"}
	case "gc":
		// Old enough to drop the runs of the first rounds, now and then.
		return []string{"gc", "--older-than", fmt.Sprintf("%ds", 6+c.rnd.IntN(30))}
	case "tool":
		return []string{"tool", "list_project_files", "{}"}
	case "runs":
		return []string{"runs", "--all"}
	case "doctor":
		return []string{"doctor"}
	case "memory":
		return []string{"memory", "list"}
	}
	c.ts.Fatalf("unknown kind %q", kind)
	return nil
}

// round kills one command at a random point, then runs the first command
// after it, killed half of the time, then checks the store.
func (c *campaign) round() {
	c.rounds++
	kind := []string{"review", "review", "ask", "gc"}[c.rnd.IntN(4)]
	c.kill(kind, kind)
	after := []string{"runs", "doctor", "memory", "review", "gc"}[c.rnd.IntN(5)]
	if c.rnd.IntN(2) == 0 {
		c.kill(after, "after")
	} else {
		c.run(after, c.argv(after), 0)
	}
	c.check()
}

// kill runs a command of kind and kills it at a random point of its
// usual time, counting the kill under label if it landed.
func (c *campaign) kill(kind, label string) {
	took := c.took[kind]
	if took == 0 {
		took = 500 * time.Millisecond
	}
	if c.run(kind, c.argv(kind), time.Duration(c.rnd.Int64N(int64(took)))) {
		c.landed[label]++
	}
}

// run runs review with args, killed after kill if not zero; it reports
// whether the kill landed. A command that ends by itself must not say the
// store is damaged.
func (c *campaign) run(kind string, args []string, kill time.Duration) bool {
	if kind == "ask" && args[1] != "--base" {
		// A follow-up continues its run, which is running until it ends
		// (interrupted, if killed).
		delete(c.complete, args[1])
	}
	if kind == "gc" {
		// What a gc may drop is no longer owed: gc takes its cut when
		// it starts, a moment after this.
		cut := time.Now().Add(gcStart - c.olderThan(args))
		for id, started := range c.complete {
			if started.Before(cut) {
				delete(c.complete, id)
			}
		}
	}
	cmd := exec.Command("review", args...)
	cmd.Dir = c.ts.MkAbs(".")
	cmd.Env = c.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	c.ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	landed := false
	if kill > 0 {
		select {
		case err = <-done:
		case <-time.After(kill):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			err = <-done
			landed = true
		}
	} else {
		err = <-done
	}
	c.ts.Logf("round %d: review %s: %s", c.rounds, strings.Join(args, " "), map[bool]string{true: "killed after " + kill.String(), false: fmt.Sprintf("exit %d", exitCode(err))}[landed])
	if !landed {
		c.took[kind] = max(c.took[kind], time.Since(start))
		if code := exitCode(err); code == 6 {
			c.refused++
			c.ts.Logf("review %s: exit 6: %s", strings.Join(args, " "), stderr.String())
		} else if strings.Contains(stderr.String(), "goroutine ") {
			c.ts.Fatalf("review %s crashed: %s", strings.Join(args, " "), stderr.String())
		}
	}
	return landed
}

// gcStart bounds the time between starting gc and gc taking its cut.
const gcStart = 5 * time.Second

func (c *campaign) olderThan(args []string) time.Duration {
	d, err := time.ParseDuration(args[len(args)-1])
	c.ts.Check(err)
	return d
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// check runs doctor, which must find no damage, and lists the runs: each
// run owed is listed complete.
func (c *campaign) check() {
	cmd := exec.Command("review", "doctor")
	cmd.Dir, cmd.Env = c.ts.MkAbs("."), c.env
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 0 {
		c.refused++
		c.ts.Logf("round %d: doctor exits %d: %s", c.rounds, code, out)
		return
	}
	cmd = exec.Command("review", "runs", "--all", "--json")
	cmd.Dir, cmd.Env = c.ts.MkAbs("."), c.env
	out, err = cmd.Output()
	c.ts.Check(err)
	var runs []struct {
		ID      string    `json:"id"`
		Status  string    `json:"status"`
		Started time.Time `json:"started"`
	}
	c.ts.Check(json.Unmarshal(out, &runs))
	listed := map[string]string{}
	for _, r := range runs {
		listed[r.ID] = r.Status
		if _, ok := c.complete[r.ID]; !ok && r.Status == "complete" {
			c.complete[r.ID] = r.Started
			c.completed++
		}
	}
	for id := range c.complete {
		if listed[id] != "complete" {
			c.lost++
			c.ts.Logf("round %d: run %s, complete before, is %q", c.rounds, id, listed[id])
			delete(c.complete, id)
		}
	}
}
