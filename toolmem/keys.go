package toolmem

import "encoding/binary"

// Namespaces of the key layout documented in doc.go.
const (
	nsMeta   = "m/"
	nsOutput = "o/"
	nsIndex  = "x/"
	nsRun    = "r/"
	nsStep   = "s/"
	nsEvent  = "e/"
	nsConv   = "c/"
	// nsTurns holds conversations message by message: a header with the
	// count, then one key per message, so a step writes what changed.
	nsTurns = "t/"
	// nsSettings holds the settings of a run apart from its record, which
	// is written again after every step.
	nsSettings = "p/"
	// nsRunning marks the runs recorded as running (u/<run>/, empty), so
	// that finding them at every start does not read every run. The key
	// "u/" alone says the marks are complete: a store written before
	// them has none, and is read whole once (Store.Running).
	nsRunning = "u/"
)

// maxStep is the largest step number the store takes.
const maxStep = 1<<32 - 1

// checkStep rejects step numbers that have no key.
func checkStep(n int) error {
	if n < 0 || uint64(n) > maxStep {
		return inputErrorf("step %d is out of range: steps count from 0", n)
	}
	return nil
}

// key concatenates parts into a key.
func key(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n+8)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

// be32 encodes n (0 to maxStep) in 4 big-endian bytes, which sort as the
// numbers do.
func be32(n int) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return string(b[:])
}

func metaKey(ref string) []byte           { return key(nsMeta, ref, "/") }
func outputPrefix(ref string) []byte      { return key(nsOutput, ref, "/") }
func indexKey(run, ref string) []byte     { return key(nsIndex, run, "/", ref) }
func indexPrefix(run string) []byte       { return key(nsIndex, run, "/") }
func runKey(id string) []byte             { return key(nsRun, id, "/") }
func stepsPrefix(run string) []byte       { return key(nsStep, run, "/") }
func stepPrefix(run string, n int) []byte { return key(nsStep, run, "/", be32(n), "/") }
func eventsPrefix(run string) []byte      { return key(nsEvent, run, "/") }
func convPrefix(run string) []byte        { return key(nsConv, run, "/") }
func turnsPrefix(run string) []byte       { return key(nsTurns, run, "/") }
func settingsPrefix(run string) []byte    { return key(nsSettings, run, "/") }
func turnKey(run string, i int) []byte    { return key(nsTurns, run, "/", be32(i)) }
func runningKey(run string) []byte        { return key(nsRunning, run, "/") }
