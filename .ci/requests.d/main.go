// Command requests.d runs the scenarios of .ci/requests with two review
// binaries, each against a scripted model (review/reviewtest) that records
// every request body, normalises what differs from run to run (run IDs,
// tool-memory refs, times, temporary paths, the server's address) and
// compares the bodies request by request: one line a scenario, and exit
// status 1 if any request differs.
//
//	requests.d -old BIN -new BIN -work DIR [-out DIR] [-only NAME,...]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	oldBin := flag.String("old", "", "the review binary built from the old revision")
	newBin := flag.String("new", "", "the review binary built from the new revision")
	work := flag.String("work", "", "a directory for the scenarios' repositories (emptied by the caller)")
	out := flag.String("out", "", "if set, write each side's normalised request bodies under it")
	only := flag.String("only", "", "run only these scenarios (comma-separated letters: a,b,...)")
	flag.Parse()
	if *oldBin == "" || *newBin == "" || *work == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: requests.d -old BIN -new BIN -work DIR [-out DIR] [-only a,b]")
		os.Exit(2)
	}
	os.Exit(run(*oldBin, *newBin, *work, *out, *only))
}

// run runs every scenario on both sides and prints one line for each;
// it returns the exit status.
func run(oldBin, newBin, work, out, only string) int {
	status := 0
	for _, sc := range scenarios {
		if only != "" && !contains(strings.Split(only, ","), sc.name) {
			continue
		}
		line, differ := compareScenario(sc, oldBin, newBin, work, out)
		fmt.Println(line)
		if differ {
			status = 1
		}
	}
	return status
}

// compareScenario runs sc with both binaries and compares what each sent.
func compareScenario(sc scenario, oldBin, newBin, work, out string) (string, bool) {
	label := fmt.Sprintf("(%s) %s", sc.name, sc.title)
	// A scenario of a flag the old binary lacks cannot be compared; one
	// the new binary lost is a difference.
	if sc.needs != "" {
		switch inOld, inNew := hasFlag(oldBin, sc.needs), hasFlag(newBin, sc.needs); {
		case !inOld && !inNew:
			return fmt.Sprintf("%s: skipped: neither binary has a --%s flag", label, sc.needs), false
		case !inNew:
			return fmt.Sprintf("%s: DIFFER: the new binary has no --%s flag", label, sc.needs), true
		case !inOld:
			return fmt.Sprintf("%s: skipped: the old binary has no --%s flag", label, sc.needs), false
		}
	}
	var got [2]*outcome
	var errs [2]error
	for i, bin := range []string{oldBin, newBin} {
		dir := filepath.Join(work, []string{"old", "new"}[i], sc.name)
		o, err := runScenario(sc, bin, dir)
		if o == nil {
			return fmt.Sprintf("%s: cannot run with the %s binary: %v", label, []string{"old", "new"}[i], err), true
		}
		o.normalise(dir)
		got[i], errs[i] = o, err
		if out != "" {
			if err := o.write(filepath.Join(out, []string{"old", "new"}[i], sc.name)); err != nil {
				fmt.Fprintln(os.Stderr, "requests:", err)
			}
		}
	}
	line, differ := verdict(label, got[0], got[1])
	for i, err := range errs {
		if err != nil {
			line += fmt.Sprintf("\n    FAILED with the %s binary (the scenario is scripted to finish): %v", []string{"old", "new"}[i], err)
			differ = true
		}
	}
	return line, differ
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}
