package cmd

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/toolmem"
)

// storeFlagHelp is the help of --store, the same on every command that opens
// tool memory.
var storeFlagHelp = "tool memory directory (default $REVIEW_STORE, else <git common dir>/review); " +
	"one review uses it at a time, others wait $REVIEW_LOCK_WAIT (a duration, default 10s) and then exit with code 4 " +
	"('runs', 'replay' and 'memory' read what a running review has recorded so far); " +
	"a damaged store exits with code 6; writing it needs " + toolmem.MiB(toolmem.MinFree) + " free on its file system"

// addStoreFlag registers --store on fs.
func addStoreFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "store", "", storeFlagHelp)
}

// storeDir resolves where tool memory lives: --store, then REVIEW_STORE,
// then the git common directory of the repository at dir. A relative
// --store or REVIEW_STORE is relative to the working directory, as a person
// typing it expects.
func storeDir(flag string, getenv func(string) string, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := getenv("REVIEW_STORE"); d != "" {
		return d, nil
	}
	return toolmem.DefaultDir(dir)
}

// lockWait reads REVIEW_LOCK_WAIT: how long to wait for another review to
// release the store. Zero means toolmem's default.
func lockWait(getenv func(string) string) (time.Duration, error) {
	s := strings.TrimSpace(getenv("REVIEW_LOCK_WAIT"))
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usageErrorf("invalid REVIEW_LOCK_WAIT %q: use a duration such as 30s, 2m or 0 (do not wait)", s)
	}
	if d == 0 {
		// toolmem reads zero as "the default" and a negative wait as
		// "fail at once", which is what 0 means here.
		return -1, nil
	}
	return d, nil
}

// openStore opens tool memory for writing; the caller closes it on every
// path. It fails with an error wrapping toolmem.ErrLocked (exit code 4) if
// another review still holds the store after the wait, and with one
// wrapping toolmem.ErrDamaged (exit code 6) if the store is damaged.
func openStore(flag string, getenv func(string) string, dir string) (*toolmem.Store, error) {
	return openStoreWith(flag, getenv, dir, toolmem.Options{})
}

// readStore opens tool memory read-only, for a command that only reads
// it: nothing in the store changes (see toolmem.Open for the recovery of a
// store left by a killed review), other readers may use it meanwhile, and a
// damaged record is skipped with a warning on errOut.
// A store a review holds is read as that review has written it so far,
// through a copy (toolmem.Options.Snapshot), and errOut says so.
func readStore(flag string, getenv func(string) string, dir string, errOut io.Writer) (*toolmem.Store, error) {
	st, err := peekStore(flag, getenv, dir, errOut)
	if err != nil {
		return nil, err
	}
	if st.Snapshot() {
		by := "a review"
		if pid := lockHolder(st.Dir()); pid > 0 {
			by = fmt.Sprintf("a review (process %d)", pid)
		}
		fmt.Fprintf(errOut, "review: %s is writing tool memory at %s: this is what it had recorded at %s\n", by, st.Dir(), time.Now().Format(time.TimeOnly))
	}
	return st, nil
}

// peekStore is readStore without the word about a review writing the
// store: for a look-up on the way to something else.
func peekStore(flag string, getenv func(string) string, dir string, errOut io.Writer) (*toolmem.Store, error) {
	st, err := openStoreWith(flag, getenv, dir, toolmem.Options{ReadOnly: true, Snapshot: true, Warn: warner(errOut)})
	return st, held(err, true)
}

// openStoreWith opens tool memory with opts, filling in the wait; a store
// opened for writing gets its abandoned runs closed.
func openStoreWith(flag string, getenv func(string) string, dir string, opts toolmem.Options) (*toolmem.Store, error) {
	wait, err := lockWait(getenv)
	if err != nil {
		return nil, err
	}
	d, err := storeDir(flag, getenv, dir)
	if err != nil {
		return nil, err
	}
	opts.LockWait = wait
	return openStoreAt(d, opts)
}

// openStoreAt opens the tool memory in d with opts; a store opened for
// writing gets its abandoned runs closed.
func openStoreAt(d string, opts toolmem.Options) (*toolmem.Store, error) {
	st, err := toolmem.Open(d, opts)
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() {
		return st, nil
	}
	if _, err := record.CloseAbandoned(st, time.Now()); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// earlyStore is tool memory opened while a review prepares its diff: the
// open (Badger's files, the runs a killed review left running, about
// 12 ms) overlaps git's work. It is tried only on a store that exists and
// that no other review holds; otherwise, or if it fails, the review opens
// the store in turn as before, waiting for the lock and reporting what
// is wrong. A store that does not exist yet (the first review of a
// clone, as every review in CI is) is created beside the reading of the
// diff and the planning, once the review knows it will run (create): a
// review of a branch with no commits of its own makes none.
type earlyStore struct {
	done  chan struct{}
	st    *toolmem.Store // the existing store, opened early
	taken bool

	flag   string
	getenv func(string) string
	dir    string
	made   chan struct{}  // closed once create's store is open; nil before
	newSt  *toolmem.Store // the store create made, once made is closed
}

// openEarly starts opening the store a review of the repository at dir
// will use.
func openEarly(flag string, getenv func(string) string, dir string) *earlyStore {
	e := &earlyStore{done: make(chan struct{}), flag: flag, getenv: getenv, dir: dir}
	go func() {
		defer close(e.done)
		d, err := storeDir(flag, getenv, dir)
		if err != nil {
			return
		}
		if _, err := os.Stat(d); err != nil {
			return // a new store is made in turn, only if a review runs
		}
		e.st, _ = openStoreAt(d, toolmem.Options{LockWait: -1})
	}()
	return e
}

// create starts creating the store of the repository, if opening it early
// finds none, beside the planning of a review that will run; once, and
// without waiting for the early open.
func (e *earlyStore) create() {
	if e.made != nil {
		return
	}
	made := make(chan struct{})
	e.made = made
	go func() {
		defer close(made)
		if <-e.done; e.st != nil {
			return // opened early: it exists
		}
		d, err := storeDir(e.flag, e.getenv, e.dir)
		if err != nil {
			return
		}
		e.newSt, _ = openStoreAt(d, toolmem.Options{LockWait: -1})
	}()
}

// wait waits for the store opened or created early, if any.
func (e *earlyStore) wait() {
	<-e.done
	if e.made != nil {
		<-e.made
	}
}

// take returns the store opened or created early, or nil; the caller then
// owns it.
func (e *earlyStore) take() *toolmem.Store {
	e.wait()
	e.taken = true
	if e.st != nil {
		return e.st
	}
	return e.newSt
}

// peek returns the existing store opened early, or nil, for a look at
// its past runs before the run takes it (a store being created has
// none): the caller does not own it.
func (e *earlyStore) peek() *toolmem.Store {
	<-e.done
	return e.st
}

// pastStore lends use the store of the repository at dir for reading:
// the one opened early, else the store opened read-only, if it exists and
// no review holds it. Nothing is created.
func pastStore(flag string, getenv func(string) string, dir string, early *earlyStore, use func(*toolmem.Store)) {
	if early != nil {
		if st := early.peek(); st != nil {
			use(st)
		}
		return
	}
	d, err := storeDir(flag, getenv, dir)
	if err != nil {
		return
	}
	if _, err := os.Stat(d); err != nil {
		return
	}
	st, err := toolmem.Open(d, toolmem.Options{ReadOnly: true, LockWait: -1})
	if err != nil {
		return
	}
	defer st.Close()
	use(st)
}

// discard closes the store opened early unless it was taken: for every
// path on which the review stops before it.
func (e *earlyStore) discard() {
	e.wait()
	if e.taken {
		return
	}
	for _, st := range []*toolmem.Store{e.st, e.newSt} {
		if st != nil {
			st.Close()
		}
	}
}

// warner prints each damaged record a command skips as a warning, and once
// where to learn more.
func warner(w io.Writer) func(error) {
	n := 0
	return func(err error) {
		fmt.Fprintf(w, "review: warning: %s\n", text.OneLine(err.Error(), 0))
		if n++; n == 1 {
			fmt.Fprintln(w, "review: warning: the rest is readable; 'review doctor' checks the whole store")
		}
	}
}

// parseAge reads an age such as 30d, 2w, 12h or 90m.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		unit = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		unit = 7 * 24 * time.Hour
	}
	if unit > 0 {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		// Written so that NaN fails too.
		if err != nil || !(n >= 0 && n <= float64(maxAge/unit)) {
			return 0, invalidAge(s)
		}
		return time.Duration(n * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, invalidAge(s)
	}
	return d, nil
}

// maxAge bounds ages given in days or weeks, so that they cannot overflow a
// time.Duration (about 292 years).
const maxAge = 100 * 365 * 24 * time.Hour

func invalidAge(s string) error {
	return fmt.Errorf("invalid age %q: use a number with d, w, h, m or s, e.g. 30d, 2w or 12h", s)
}
