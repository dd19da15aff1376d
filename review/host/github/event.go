package github

import "github.com/reviewdev/review/review/host/seam"

// events are the event files GitHub Actions writes.
var events = seam.Events{Host: "GitHub", CI: "GitHub Actions"}

// PREvent is what review needs from a pull request's event.
type PREvent = seam.PREvent

// ReadPREvent reads the pull request number and head commit from the
// event payload GitHub Actions writes to $GITHUB_EVENT_PATH
// (seam.Events.ReadPR).
func ReadPREvent(path string) (PREvent, error) { return events.ReadPR(path) }

// PRFromEvent returns the pull request number from the event payload at
// path ($GITHUB_EVENT_PATH); see ReadPREvent.
func PRFromEvent(path string) (int, error) {
	ev, err := ReadPREvent(path)
	return ev.Number, err
}
