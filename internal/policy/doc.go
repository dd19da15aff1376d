// Package policy holds the repository's policies as tests: the layers of
// the package map and its table in docs/architecture.md, the complexity cap, the docs and the README held to the
// code, errors below cmd that name no flag, the binary's size, and the
// workflows actionlint checks. It has no code of its own and nothing
// imports it; its tests read the repository from its root, whatever
// package they would otherwise belong to.
package policy
