package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/toolmem"
)

// Each typed error of the packages below gets its advice and exit code
// here, and the line it makes reads as one sentence: the error's own
// words (after any wrapper's), then what to do.
func TestAdvice(t *testing.T) {
	const dir = "/r/.git/review"
	tests := []struct {
		name string
		err  error
		line string
		code int
	}{
		{"locked", &toolmem.LockedError{Dir: dir, Waited: 300 * time.Millisecond},
			"tool memory at /r/.git/review is in use by another review (waited 300ms): wait for it to finish or use --store DIR", ExitLocked},
		{"damaged store", &toolmem.DamagedError{Dir: dir, Reason: "its MANIFEST is missing"},
			"tool memory at /r/.git/review is damaged (its MANIFEST is missing); it was left as it is: move it aside to start afresh (mv /r/.git/review /r/.git/review.damaged), and see 'review doctor --store /r/.git/review' for details", ExitDamaged},
		{"damaged record", fmt.Errorf("reading run x: %w", &toolmem.DamagedError{Dir: dir, Record: "run x", Reason: "it fails its checksum"}),
			"reading run x: run x in tool memory at /r/.git/review is damaged (it fails its checksum); the other records are readable: 'review doctor' lists every damaged one", ExitDamaged},
		{"read-only", &toolmem.ReadOnlyError{Dir: dir},
			"tool memory at /r/.git/review is read-only: 'review runs', 'replay', 'memory' and 'doctor' can read it, but a review needs a store it can write: make it writable (chmod u+w /r/.git/review) or choose another with --store DIR", ExitError},
		{"no access", &toolmem.AccessError{Dir: dir, Reason: "permission denied"},
			"cannot open tool memory at /r/.git/review: permission denied: make it readable and writable by you, or choose another with --store DIR", ExitError},
		{"not a store", &toolmem.NotStoreError{Dir: "/home/me/notes", Holds: "precious.txt"},
			"/home/me/notes is not a tool memory directory (it holds precious.txt): choose an empty or new directory with --store DIR", ExitError},
		{"disk full", &toolmem.DiskFullError{Dir: dir, What: "writing output abc"},
			"writing output abc in tool memory at /r/.git/review: no space left on the device: free space on its file system ('review gc' removes old runs), or choose another store with --store DIR", ExitError},
		{"not a repository", &toolmem.GitDirError{Dir: "/tmp/x"},
			"/tmp/x is not inside a git repository: run review in one, or choose a store with --store DIR", ExitError},
		{"no git directory", &toolmem.GitDirError{Dir: "/tmp/x", Reason: "unsafe repository"},
			"cannot locate the git directory of /tmp/x (unsafe repository): run review in a git repository, or choose a store with --store DIR", ExitError},
		{"no directory", toolmem.ErrNoDir,
			"tool memory directory is empty: choose one with --store DIR", ExitError},
		{"no such ref", &toolmem.NotFoundError{Kind: toolmem.KindRef, ID: "nosuchref2"},
			`no stored output with ref "nosuchref2": list refs with 'review memory list'`, ExitError},
		{"no such run", &toolmem.NotFoundError{Kind: toolmem.KindRun, ID: "20200101-000000-nosuch"},
			`no run with ID "20200101-000000-nosuch": list runs with 'review runs'`, ExitError},
		{"untyped", errors.New("something else"), "something else", ExitError},
		{"interrupted wins", fmt.Errorf("%w: %w", context.Canceled, &toolmem.LockedError{Dir: dir}),
			"context canceled: tool memory at /r/.git/review is in use by another review (waited 0s): wait for it to finish or use --store DIR", ExitInterrupted},
	}
	// Every adviser must advise on some error of the table: one shadowed
	// by an earlier one would never speak.
	reached := make([]bool, len(advisers))
	for _, tt := range tests {
		for i, a := range advisers {
			if _, _, ok := a(tt.err); ok {
				reached[i] = true
				break
			}
		}
	}
	for i, ok := range reached {
		if !ok {
			t.Errorf("adviser %d advises on no error of the table", i)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorLine(tt.err); got != tt.line {
				t.Errorf("line\n%s\nwant\n%s", got, tt.line)
			}
			if got := exitCode(tt.err); got != tt.code {
				t.Errorf("exit code %d, want %d", got, tt.code)
			}
			if strings.Contains(tt.err.Error(), "--") {
				t.Errorf("the error names a flag itself: %q", tt.err.Error())
			}
		})
	}
}

// A wrapper's words after the typed error stay in place, and the advice
// ends the line.
func TestAdviceAfterWrapper(t *testing.T) {
	err := fmt.Errorf("%w; the run is kept", &toolmem.LockedError{Dir: "/s", Waited: time.Second})
	want := "tool memory at /s is in use by another review (waited 1s); the run is kept: wait for it to finish or use --store DIR"
	if got := errorLine(err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
