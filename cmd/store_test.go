package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * day, true},
		{"2w", 14 * day, true},
		{"1.5d", 36 * time.Hour, true},
		{"12h", 12 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"0s", 0, true},
		{"0", 0, true},
		{" 7d ", 7 * day, true},
		{"", 0, false},
		{"30", 0, false},
		{"xyz", 0, false},
		{"-3d", 0, false},
		{"-1h", 0, false},
		{"d", 0, false},
		{"NaNd", 0, false},
		{"Infw", 0, false},
		{"1e9d", 0, false},
		{"30D", 0, false},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("parseAge(%q) error = %v, want ok %v", tt.in, err, tt.ok)
			continue
		}
		if got != tt.want {
			t.Errorf("parseAge(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "2w", "1.5d", "12h", "-1d", "NaNd", "1e308w", "0x10d", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseAge(s)
		if err == nil && d < 0 {
			t.Fatalf("parseAge(%q) = %v, a negative age", s, d)
		}
	})
}

func TestLockWait(t *testing.T) {
	tests := []struct {
		env  string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, // toolmem's default
		{"300ms", 300 * time.Millisecond, true},
		{"2m", 2 * time.Minute, true},
		{"0", -1, true}, // fail at once
		{"0s", -1, true},
		{"soon", 0, false},
		{"10", 0, false},
		{"-1s", 0, false},
	}
	for _, tt := range tests {
		got, err := lockWait(func(k string) string {
			if k == "REVIEW_LOCK_WAIT" {
				return tt.env
			}
			return ""
		})
		if (err == nil) != tt.ok {
			t.Errorf("REVIEW_LOCK_WAIT=%q: error = %v, want ok %v", tt.env, err, tt.ok)
			continue
		}
		var ue *UsageError
		if err != nil && !errors.As(err, &ue) {
			t.Errorf("REVIEW_LOCK_WAIT=%q: error %v is not a usage error", tt.env, err)
		}
		if got != tt.want {
			t.Errorf("REVIEW_LOCK_WAIT=%q: wait %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestStoreDir(t *testing.T) {
	gittest.Isolate(t)
	repo := gittest.New(t).Dir
	if err := os.Mkdir(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	def, err := filepath.EvalSymlinks(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, flag, env, dir, want string
	}{
		{"flag", "s1", "", repo, "s1"},
		{"flag wins", "/a/s1", "/b/s2", repo, "/a/s1"},
		{"env", "", "s2", repo, "s2"},
		{"default", "", "", repo, filepath.Join(def, "review")},
		{"default from a subdirectory", "", "", filepath.Join(repo, "sub"), filepath.Join(def, "review")},
	}
	// The temporary directory may sit behind a symlink (macOS /var).
	resolved := func(p string) string {
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(d, filepath.Base(p))
		}
		return p
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := storeDir(tt.flag, func(k string) string {
				if k == "REVIEW_STORE" {
					return tt.env
				}
				return ""
			}, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if resolved(got) != tt.want {
				t.Errorf("storeDir = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := storeDir("", func(string) string { return "" }, t.TempDir()); err == nil {
		t.Error("storeDir outside a repository: no error")
	}
}
