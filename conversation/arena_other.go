//go:build !linux

package conversation

// reserve has no huge pages to ask for here: the table is made on Go's
// heap.
func reserve(int) (b, mapping []byte) { return nil, nil }

func release([]byte) {}

func smallPagesFrom([]byte, int) {}
