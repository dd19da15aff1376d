package diffctx

import "strings"

// Status is what happened to a file between the merge base and head.
type Status string

// File statuses. A change of mode only, or of type (say a symlink replaced by
// a regular file), is Modified; File records the modes.
const (
	Added    Status = "added"
	Deleted  Status = "deleted"
	Modified Status = "modified"
	Renamed  Status = "renamed"
	Copied   Status = "copied"
)

// Tags classify a changed file for prioritising and summarising it.
const (
	TagSecurity  = "security"
	TagConfig    = "config"
	TagTest      = "test"
	TagDocs      = "docs"
	TagGenerated = "generated"
	TagLockfile  = "lockfile"
	TagBinary    = "binary"
	// TagSteering marks a file that instructs AI agents and reviewers:
	// review's .review.yaml (with the repository's instructions),
	// AGENTS.md, CLAUDE.md, Copilot's and Cursor's instruction files. A
	// change to them is named as such: it is data to review, and it does
	// not instruct the review of itself (see injection.Steering).
	TagSteering = "reviewer-instructions"
	// TagBulk marks a file whose changed lines are bulk rather than code
	// to judge line by line: minified, a data fixture, or one file that
	// holds most of a large change. It is reviewed after every other
	// file.
	TagBulk = "bulk"
)

// File is one changed file.
type File struct {
	// Path is the file's path relative to the repository root: the new
	// path, or for a deleted file the path it had.
	Path string `json:"path"`
	// OldPath is the path on the base side: the source of a rename or
	// copy, the same as Path for modified and deleted files, and empty for
	// added files, which have no base side.
	OldPath string `json:"old_path"`
	Status  Status `json:"status"`
	// OldMode and NewMode are git file modes such as "100644"; a side that
	// does not exist has none.
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	// Similarity is git's similarity index, in percent, of a rename or copy.
	Similarity int `json:"similarity,omitempty"`
	// Additions and Deletions count added and deleted lines; they equal
	// git diff --numstat, and are zero for binary files.
	Additions int  `json:"additions"`
	Deletions int  `json:"deletions"`
	Binary    bool `json:"binary"`
	// Symlink and Submodule report a symbolic link (mode 120000) or a
	// submodule (mode 160000) on either side.
	Symlink   bool `json:"symlink,omitempty"`
	Submodule bool `json:"submodule,omitempty"`
	// TypeChange reports that the path changed type, e.g. from a symbolic
	// link to a regular file. Git prints such a change as a deletion and an
	// addition of the same path; File merges them.
	TypeChange bool `json:"type_change,omitempty"`
	// TooLarge reports a diff too large to hold (over maxSection): its
	// hunks were counted, not kept. The file is only summarised; its
	// lines are read in parts with the tools.
	TooLarge bool `json:"too_large,omitempty"`
	// Tags are drawn from the Tag constants, in the order they are declared.
	Tags  []string `json:"tags"`
	Hunks []Hunk   `json:"-"`
	// Symbols are the definitions the change adds, modifies or removes in
	// the file, with the uses the repository has of them, as the engine
	// found them (package symbols); the overview names them when it has
	// room.
	Symbols []Symbol `json:"-"`

	// patch is the file's section of the diff as git printed it.
	patch []byte
}

// Patch returns the file's section of the diff exactly as git printed it,
// from its "diff --git" line to its last hunk, or nil when none is held: a
// section over 256 KiB (its hunks hold it already), a diff too large to
// hold (TooLarge), or a change of type, which git prints as two sections
// that File merges. It is the whole change's, unnarrowed
// by Since and unredacted.
func (f *File) Patch() []byte { return f.patch }

// Symbol is one definition a change touches.
type Symbol struct {
	Name string // "Name", or "Type.Name" for a method or field
	Kind string // func, method, type, class...
	Line int    // its first line at head (at base for a removed one)
	// Change is "added", "modified" or "removed".
	Change string
	// Uses and Files count its uses at head and the files holding them.
	Uses, Files int
}

// Hunk is one hunk of a file's diff.
type Hunk struct {
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Section  string `json:"section,omitempty"` // the text after the second "@@", trimmed
	// Body is the hunk's lines as git printed them, each ending in "\n": a
	// space for context, "-" for a deleted line, "+" for an added one, and
	// "\ No newline at end of file" after a last line that lacks one.
	// Carriage returns of CRLF content are kept.
	Body string `json:"body"`
}

// HasTag reports whether f carries tag.
func (f *File) HasTag(tag string) bool {
	for _, t := range f.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Diff is the change of a branch: head compared with the merge base of base
// and head.
type Diff struct {
	Root      string `json:"root"` // work tree top level (absolute)
	Base      string `json:"base"` // as given
	Head      string `json:"head"` // as given
	BaseSHA   string `json:"base_sha"`
	HeadSHA   string `json:"head_sha"`
	MergeBase string `json:"merge_base"`
	// Checkout is HeadSHA when the head is the commit the work tree at
	// Root holds (the head was given as HEAD), and empty when that is not
	// known.
	Checkout string  `json:"-"`
	Files    []*File `json:"files"`
	// Since and SinceSHA are the revision Options.Since named, when the
	// review is of the commits since it: Files then holds only what they
	// changed, and Earlier the files of the whole change they did not
	// touch, for context.
	Since    string  `json:"since,omitempty"`
	SinceSHA string  `json:"since_sha,omitempty"`
	Earlier  []*File `json:"earlier,omitempty"`
	// Warnings are what git warned of while diffing, without "warning: ",
	// such as rename detection skipped for too many files: renamed files
	// then read as deleted and added.
	Warnings []string `json:"warnings,omitempty"`

	byPath  map[string]*File // index of Files by Path, built on first use
	indexed []*File          // the Files byPath indexes
}

// File returns the changed file at path (its new path), or nil. Files are
// indexed on first use, and again when Files is replaced or grows; a
// caller that swaps entries in place must not mix that with File.
func (d *Diff) File(path string) *File {
	if d.byPath == nil || len(d.indexed) != len(d.Files) || len(d.Files) > 0 && &d.indexed[0] != &d.Files[0] {
		d.indexed = d.Files
		d.byPath = make(map[string]*File, len(d.Files))
		for _, f := range d.Files {
			if _, dup := d.byPath[f.Path]; !dup {
				d.byPath[f.Path] = f
			}
		}
	}
	return d.byPath[path]
}

// Changed reports whether line (1-based, new side) of path is an added line.
func (d *Diff) Changed(path string, line int) bool {
	f := d.File(path)
	if f == nil {
		return false
	}
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if line < h.NewStart || line >= h.NewStart+h.NewLines {
			continue
		}
		found := false
		h.walk(func(op byte, _ string, newLine int) bool {
			if newLine == line && op == '+' {
				found = true
			}
			return newLine < line
		})
		return found
	}
	return false
}

// InHunk reports whether line (1-based, new side) of path falls inside the
// new range of one of its hunks, context lines included.
func (d *Diff) InHunk(path string, line int) bool { return d.InOneHunk(path, line, line) }

// InOneHunk reports whether lines start to end (1-based, new side) of path
// all fall inside the new range of one hunk, context lines included: a
// host places a comment on a range only within one hunk.
func (d *Diff) InOneHunk(path string, start, end int) bool {
	f := d.File(path)
	if f == nil {
		return false
	}
	for _, h := range f.Hunks {
		if start >= h.NewStart && end < h.NewStart+h.NewLines {
			return true
		}
	}
	return false
}

// walk calls fn for each line of h's body with the line's operation (' ',
// '-', '+' or '\\'), its text without the operation, and its new-side line
// number (0 for deleted lines and markers). It stops when fn returns false.
func (h *Hunk) walk(fn func(op byte, text string, newLine int) bool) {
	n := h.NewStart
	body := h.Body
	for body != "" {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if line == "" {
			continue
		}
		op, newLine := line[0], 0
		if op == ' ' || op == '+' {
			newLine = n
			n++
		}
		if !fn(op, line[1:], newLine) {
			return
		}
	}
}
