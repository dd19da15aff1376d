package redact

import "strings"

// RedactPath replaces the secrets in p, a file's path, with placeholders,
// and returns what was replaced: a token in a file's name would otherwise
// reach the model and the disk wherever the path is shown (the diff
// context, findings, tool memory, replay). A path is redacted as text of
// unknown origin, so a secret in a path reads as the same placeholder in
// a tool's output listing it.
func (r *Redactor) RedactPath(p string) (string, []Match) {
	if r == nil || !strings.ContainsFunc(p, func(c rune) bool { return c != '/' && c != '.' }) {
		return p, nil
	}
	return r.Redact(p)
}

// Names reports whether named, a path as the model was shown it, is path
// redacted: the model, which never sees a secret, names a file whose path
// holds one by its placeholder, and the tools find the file so. The
// placeholder is resolved inside the process only.
func (r *Redactor) Names(named, path string) bool {
	if r == nil || !strings.Contains(named, "[secret:") {
		return named == path
	}
	// The text around the placeholders must be the path's, in order,
	// before the path is redacted to compare: most paths are not it.
	rest := path
	for i, piece := range placeholderRE().Split(named, -1) {
		at := strings.Index(rest, piece)
		if at < 0 || i == 0 && at != 0 {
			return false
		}
		rest = rest[at+len(piece):]
	}
	red, _ := r.RedactPath(path)
	return red == named
}
