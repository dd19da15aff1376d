// Package store keeps items.
package store

import (
	"net/http"

	"example.com/shop/calc"
)

// Tokens is what counts words.
type Tokens interface{ Count(string) int }

// Base holds what every store has.
type Base struct {
	Name    string
	counter *calc.Counter
}

// Get returns the base's name.
func (b *Base) Get(key string) string { return b.Name + key }

// Store embeds Base and adds items.
type Store struct {
	Base
	Items []Item
}

// Item is one item.
type Item struct {
	Name  string
	Price int
}

// Total sums the prices, scaled.
func (s *Store) Total(rate int) int {
	t := 0
	for _, it := range s.Items {
		t += calc.Scale(it.Price, rate)
	}
	return t
}

// Words counts the words of the items' names through any counter.
func Words(tok Tokens, items []Item) int {
	n := 0
	for i := range items {
		n += tok.Count(items[i].Name)
	}
	return n
}

// Header reads a header: http.Header's Get is not Base's.
func Header(r *http.Request) string { return r.Header.Get("X-Store") }

// Open makes a store.
func Open(name string) *Store {
	s := &Store{Base: Base{Name: name, counter: calc.NewCounter()}}
	s.counter.Count(name)
	return s
}
