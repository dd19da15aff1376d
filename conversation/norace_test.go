//go:build !race

package conversation

// raceBuild says the tests run under the race detector (cases).
const raceBuild = false
