// Package posttest holds what the hosts act on in a posted text, by their
// own published rules, as oracles for tests: GitLab's quick-action
// extractor in both generations teams run (Commands), GitHub's mention
// filter (Mentions). The post package's neutralisation is held to these,
// never to its own idea of Markdown.
package posttest
