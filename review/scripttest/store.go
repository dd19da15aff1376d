package scripttest

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dgraph-io/badger/v4"
	"github.com/rogpeppe/go-internal/testscript"
)

// corruptstore copies the tool memory in src to dst and damages the copy:
// `corruptstore mode src dst [run]`. Modes:
//
//	copy      no damage
//	sst       64 random bytes into the middle of the largest table
//	manifest  the MANIFEST deleted
//	vlog      the largest value log file cut to half its length
//	vlogtail  4 bytes of the last entry of the newest value log replaced
//	vlogheader byte 5 of the newest value log flipped (its header's
//	          encryption key ID); prints the file's name and size
//	record    the record of run written over with bytes that are not JSON
//	          (through Badger, so every checksum holds)
func cmdCorruptStore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || (args[0] == "record") != (len(args) == 4) {
		ts.Fatalf("usage: corruptstore copy|sst|manifest|vlog|vlogtail|vlogheader|record src dst [run]")
	}
	src, dst := ts.MkAbs(args[1]), ts.MkAbs(args[2])
	ts.Check(os.MkdirAll(dst, 0o700))
	entries, err := os.ReadDir(src)
	ts.Check(err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600))
	}
	switch args[0] {
	case "copy":
	case "sst":
		f := largest(ts, dst, ".sst")
		data, err := os.ReadFile(f)
		ts.Check(err)
		r := rand.New(rand.NewPCG(1, 2))
		for i := len(data) / 2; i < len(data)/2+64 && i < len(data); i++ {
			data[i] = byte(r.IntN(256))
		}
		ts.Check(os.WriteFile(f, data, 0o600))
	case "manifest":
		ts.Check(os.Remove(filepath.Join(dst, badger.ManifestFilename)))
	case "vlog":
		f := largest(ts, dst, ".vlog")
		info, err := os.Stat(f)
		ts.Check(err)
		ts.Check(os.Truncate(f, info.Size()/2))
	case "vlogtail":
		f := newest(ts, dst, ".vlog")
		data, err := os.ReadFile(f)
		ts.Check(err)
		for i := len(data) - 10; i < len(data)-6; i++ {
			data[i] ^= 0xff
		}
		ts.Check(os.WriteFile(f, data, 0o600))
	case "vlogheader":
		f := newest(ts, dst, ".vlog")
		data, err := os.ReadFile(f)
		ts.Check(err)
		data[5] ^= 0xff
		ts.Check(os.WriteFile(f, data, 0o600))
		fmt.Fprintf(ts.Stdout(), "flipped byte 5 of %s (%d bytes)\n", filepath.Base(f), len(data))
	case "record":
		db, err := badger.Open(badger.DefaultOptions(dst).WithLogger(nil))
		ts.Check(err)
		ts.Check(db.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte("r/"+args[3]+"/"), []byte("{not a run record"))
		}))
		ts.Check(db.Close())
	default:
		ts.Fatalf("unknown damage %q", args[0])
	}
}

// largest returns the largest file in dir whose name ends in ext.
func largest(ts *testscript.TestScript, dir, ext string) string {
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	best, size := "", int64(-1)
	for _, e := range entries {
		info, err := e.Info()
		ts.Check(err)
		if strings.HasSuffix(e.Name(), ext) && info.Size() > size {
			best, size = filepath.Join(dir, e.Name()), info.Size()
		}
	}
	if best == "" {
		ts.Fatalf("no %s file in %s", ext, dir)
	}
	return best
}

// newest returns the file in dir whose name ends in ext with the highest
// number: Badger's files are numbered in the order it creates them.
func newest(ts *testscript.TestScript, dir, ext string) string {
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	best, id := "", -1
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ext))
		if strings.HasSuffix(e.Name(), ext) && err == nil && n > id {
			best, id = filepath.Join(dir, e.Name()), n
		}
	}
	if best == "" {
		ts.Fatalf("no %s file in %s", ext, dir)
	}
	return best
}

// storesum writes to file one line per file of dir, with its name, mode,
// size and SHA-256, so that `cmp` can tell whether a command changed the
// directory: `storesum dir file`.
func cmdStoreSum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: storesum dir file")
	}
	dir := ts.MkAbs(args[0])
	var lines []string
	ts.Check(filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		sum := "-"
		if info.Mode().IsRegular() {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", h.Sum(nil))
		}
		lines = append(lines, fmt.Sprintf("%s %v %d %s", rel, info.Mode(), info.Size(), sum))
		return nil
	}))
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// DiskKiB is the disk space the files under dir take, in KiB: allocated
// blocks, as du counts them.
func DiskKiB(dir string) (int64, error) {
	var blocks int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			blocks += st.Blocks
		}
		return nil
	})
	return blocks * 512 / 1024, err
}
