package seam

import (
	"encoding/json"
	"net/url"
	"strings"
)

// maxWebURL bounds a web address taken from a host's answer.
const maxWebURL = 2048

// WebURL is a web address a host answers (a comment's html_url), as review
// prints it in the job's log and posts it in a summary: an http(s) URL on
// one line, at most 2,048 bytes, or "" when the answer's is not one. The
// answer is data from the network; its address must not carry a line of
// its own into a log a runner reads for commands.
type WebURL string

// UnmarshalJSON takes a JSON string, and keeps it only when it is such an
// address; null is "".
func (l *WebURL) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = ""
	if s != nil && len(*s) <= maxWebURL && !strings.ContainsFunc(*s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }) {
		if u, err := url.Parse(*s); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
			*l = WebURL(*s)
		}
	}
	return nil
}
