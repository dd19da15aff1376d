// Package report writes reports of stores.
package report

import (
	"fmt"

	"example.com/shop/calc"
	"example.com/shop/store"
)

// Line describes a store.
func Line(s *store.Store) string {
	Scale := 2 // a local that shadows nothing of calc
	name := s.Get("")
	items := s.Items
	first := items[0]
	return fmt.Sprintf("%s %s %d %d", name, first.Name, s.Total(Scale), calc.Scale(1, Scale))
}

// Count counts the words of a store's item names.
func Count(s *store.Store) int {
	c := calc.NewCounter()
	return store.Words(c, s.Items) + c.Count(s.Name)
}
