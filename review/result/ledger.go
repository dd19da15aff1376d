package result

// The states of a finding in the ledger of a pull or merge request: what
// became of each finding review posted there, across pushes.
const (
	// LedgerOpen: posted, and still there (found again, or its lines
	// unchanged): it is not posted twice.
	LedgerOpen = "open"
	// LedgerFixed: the commits since changed its lines and this review
	// did not find it again; review resolved its thread.
	LedgerFixed = "fixed"
	// LedgerDismissed: a person resolved its thread, marked it 👎 or
	// answered /review dismiss in it; it is never posted again.
	LedgerDismissed = "dismissed"
)

// LedgerEntry is one finding of the ledger: its fingerprint (see
// Finding.Fingerprint), its state, the run that found it, where it was
// posted, and why it is in that state when a person decided it.
type LedgerEntry struct {
	Fingerprint string `json:"fingerprint"`
	State       string `json:"state"`
	Run         string `json:"run"`
	Path        string `json:"path"`
	Line        int    `json:"line"`
	URL         string `json:"url,omitempty"`
	Why         string `json:"why,omitempty"`
}
