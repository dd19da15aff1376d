package lazy

import (
	"sync"
	"testing"
)

func TestRegexp(t *testing.T) {
	re := Regexp(`^a+b$`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if !re().MatchString("aab") || re().MatchString("ab ") {
				t.Error("wrong match")
			}
		})
	}
	wg.Wait()
	if re() != re() {
		t.Error("compiled twice")
	}
}

func TestRegexpPanicsAtFirstUse(t *testing.T) {
	re := Regexp(`(`) // no panic here
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic at first use")
		}
	}()
	re()
}
