// Package calc scales amounts.
package calc

import "strings"

// Counter counts words.
type Counter struct{ seen map[string]int }

// Count counts the words of s.
func (c *Counter) Count(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		c.seen[w]++
		n++
	}
	return n
}

// Scale multiplies x by f.
func Scale(x, f int) int { return x * f }

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{seen: map[string]int{}} }
