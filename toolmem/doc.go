// Package toolmem is the review's store on disk: one Badger database per
// repository that is the run database as much as the tool memory, the two
// in one store under one lock because each points into the other.
//
// As the tool memory it keeps every tool output whole under a short
// reference ID (a ref), builds the previews the conversation carries
// instead of the outputs, and reads outputs back whole, by line range or
// by regular expression (the model's read_tool_output tool, and review
// memory).
//
// As the run database it keeps every review as a run: the run's record
// (repository, revisions, model, status, and two JSON documents stored
// byte for byte: the settings, with the budget and the units a large diff
// is reviewed in, and the usage, with the counts, the outcome and the
// result, findings included), its steps (each request body exactly as
// sent to the model, its response, the step's token figures), its events
// (what each request added, pruning passes, replans, fallbacks, what was
// sent where) and its conversation. A follow-up question (review ask)
// continues a run from its conversation and adds its steps to it; review
// runs, replay, doctor and gc read the runs. review/record writes and
// reads these records and owns what they mean; review tool records a run
// of its own for the output it stores.
//
// The two meet at the ref. An output is made by a tool call of a step of
// a run: its ref is derived from the run and the call ID, its metadata
// names the run and the step, the run's index lists it, the step record
// lists the refs stored while handling its response, and the
// conversation's tool results name the ref behind their previews (which
// a pruned history's summary keeps). GC drops a run with its outputs, and
// outputs of no recorded run once they are old.
//
// It knows nothing about models, tools or the records' formats: tool names,
// arguments, requests, events and conversations are opaque strings and
// bytes to it. The one tool it names is
// toolname.ReadToolOutput, which previews tell the model to call for more.
//
// # Location and sharing
//
// A store lives in one directory, by default <git common dir>/review (see
// DefaultDir), so it is per repository, shared by its worktrees and never
// committed. The directory is created 0700, and group and others lose their
// permissions on it and its files when the store opens and closes (files
// Badger adds in between are covered by the directory's mode); no permission
// is ever added. Open refuses a directory that holds anything but a store.
// One process writes to a store at a time, and only when no other reads it;
// readers (Options.ReadOnly) share it. Open waits Options.LockWait for the
// store to be free and then fails with ErrLocked. A reader that asks for it
// (Options.Snapshot) does not wait for a writer: it reads a copy of what
// the writer has written so far, which it takes without a lock and without
// changing the store (see snapshot.go).
//
// # Damage
//
// Badger trusts its files: it starts an empty store over tables whose
// MANIFEST is gone and deletes them, trims its logs after their first
// damaged entry, panics in a background goroutine on a damaged table, and
// only logs a value it cannot read; a writable open changes the store
// (a new write-ahead log, empty value logs deleted) before it has read
// every file. So Open checks the files first, with the directory locked
// (checkFiles, which also reads each log's header, and reads whole each
// table no earlier open recorded as checked: verifiedFile), a writable Open opens
// the store read-only before (probe) unless its files are those a clean close
// recorded (closedLine), Badger checks blocks and values against
// their checksums as it reads them, and this package turns what Badger says
// and its panics into errors that wrap ErrDamaged. A store that cannot be
// opened is left as it is. A damaged record is an ErrDamaged error when it
// is read, and is left out of listings (Options.Warn is told); Verify reads
// every record, and every table whole. A read-only open changes nothing, but for the recovery of a
// store left by a killed writer, which Badger needs before it can read it
// (see Open and recovery): it only shrinks and removes files, so it needs
// no room on the disk.
//
// # A full disk
//
// Badger writes through memory maps of files it sizes first, sparse: on a
// full file system a write is a SIGBUS in one of Badger's goroutines, which
// ends the process. So a writable Open asks for MinFree free space, each
// write is refused with a *DiskFullError once less than 32 MiB
// (writeReserve) would be left, and a fault of a memory map in the caller's goroutine (guard)
// is a *DiskFullError too, never damage (see space.go).
//
// # Key layout
//
// Every key starts with a one-letter namespace and a slash; the ID that
// follows ends with a slash, so the keys of one run or one output share a
// prefix that no other run or output shares (run IDs cannot contain a slash,
// refs have a fixed length). Numbers are 4-byte big-endian so that steps,
// events and chunks list in order. Blobs (outputs, request and response
// bodies, conversations) are stored as a header holding their length followed
// by chunks of at most 1 MiB, which keeps every value well inside Badger's
// value and transaction limits whatever the size of the blob.
//
//	key                              value
//	m/<ref>/                         output metadata (JSON)
//	o/<ref>/                         output length (8-byte big-endian)
//	o/<ref>/<chunk>                  output bytes, chunk by chunk
//	x/<run>/<ref>                    empty: the outputs of a run
//	r/<run>/                         run record (JSON)
//	u/<run>/                         empty: the run is recorded as running
//	u/                               empty: every running run is marked
//	p/<run>/ (+ <chunk>)             the run's settings (blob), apart from its record
//	s/<run>/<step>/h                 step record (JSON)
//	s/<run>/<step>/q/ (+ <chunk>)    request body (blob) as review/record
//	                                 stores it: whole, or as a delta of an
//	                                 earlier step's
//	s/<run>/<step>/a/ (+ <chunk>)    response body (blob)
//	e/<run>/<seq>                    event: step (4 bytes) then its data verbatim
//	t/<run>/                         the run's conversation: count of parts and
//	                                 the caller's number (JSON)
//	t/<run>/<part>                   one part of it (a message), 4-byte index
//	c/<run>/ (+ <chunk>)             a conversation stored whole (blob): other
//	                                 shapes, and stores written before t/
//
// Run records are appended per step, never rewritten whole: a record
// written again writes only what changed since this process wrote it (see
// memo), so what a step adds to the store is about what it added to the
// run.
//
// # Durability
//
// Badger's write-ahead log survives a killed process: whatever was committed
// is there on reopen. Writing run records (runs, steps, events,
// conversations) asks for a sync to disk, which a goroutine makes for all
// the writes that came in since the last one, at most once every
// syncEvery (200 ms), and Close makes at once: so they survive a crash of
// the machine, together with the outputs written before them, within
// syncEvery and a sync's time of being written. A sync writes out every
// page written since the last one and leaves it read-only until the next
// write faults it back; syncing once an interval, not after every write,
// keeps that cost off units that write side by side.
//
// Values up to valueThreshold (64 KiB) stay in the LSM tree; larger ones
// go to the value log. Badger starts a value log file at every open and
// keeps each that holds a live value, so a lower threshold left a file per
// review, which every later open mapped.
package toolmem
