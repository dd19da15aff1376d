// Package action holds the tests of review's GitHub Action (action.yml at
// the repository's root, action/install.sh): the installer against fake
// releases, the pinning of the binary, the review step, the release
// configuration and workflows the action's users copy from docs/ci.md. It
// has no code of its own; its tests read the repository from its root.
package action
