package report

import "github.com/reviewdev/review/review/result"

// level is how loud a finding is in the formats that a gate reads by level
// (SARIF for code scanning, rdjson for reviewdog): one mapping for both, so
// that code scanning's check, reviewdog's -fail-level and review's own exit
// code agree. A finding at or above --fail-on is an error, the level code
// scanning fails its check on and reviewdog's -fail-level=error fails on;
// below it, critical, high and medium findings are warnings, low and info
// notes. Without --fail-on nothing is an error, and no gate fails on one.
// (GitHub annotations gate nothing: they follow the severity alone, see
// annotationLevel.)
type level int

const (
	levelNote level = iota
	levelWarning
	levelError
)

// levelOf is the level of a finding of severity s under the --fail-on
// threshold failOn ("" for none).
func levelOf(s, failOn result.Severity) level {
	switch {
	case failOn != "" && s.Rank() > 0 && s.Rank() >= failOn.Rank():
		return levelError
	case s == result.Critical, s == result.High, s == result.Medium:
		return levelWarning
	}
	return levelNote
}
