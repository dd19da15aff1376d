package toolmem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// A blob is a byte string of any size: a header key (the blob's prefix)
// holding its length, then chunks under prefix+<chunk>.

// chunkSize bounds each stored value of a blob, far below Badger's value
// size limit (the value log file size) and cheap to hold in a transaction.
const chunkSize = 1 << 20

// putBlob replaces the blob at prefix with data (nil removes it).
func putBlob(txn *badger.Txn, prefix []byte, data []byte) error {
	if err := deletePrefix(txn, prefix); err != nil {
		return err
	}
	if data == nil {
		return nil
	}
	var hdr [8]byte
	binary.BigEndian.PutUint64(hdr[:], uint64(len(data)))
	if err := txn.Set(prefix, hdr[:]); err != nil {
		return err
	}
	for i := 0; len(data) > 0; i++ {
		n := min(len(data), chunkSize)
		// Badger keeps the slice until commit; data is the caller's and
		// is not modified meanwhile.
		if err := txn.Set(key(string(prefix), be32(i)), data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// errNoBlob reports a blob that was never written (as opposed to an empty
// one).
var errNoBlob = errors.New("no such blob")

// getBlob reads the blob at prefix, or errNoBlob.
func getBlob(txn *badger.Txn, prefix []byte) ([]byte, error) {
	item, err := txn.Get(prefix)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, errNoBlob
	}
	if err != nil {
		return nil, err
	}
	var size uint64
	if err := readValue(item, func(v []byte) error {
		if len(v) != 8 {
			return errors.New("its length header is damaged")
		}
		size = binary.BigEndian.Uint64(v)
		return nil
	}); err != nil {
		return nil, err
	}
	// The header is trusted only as far as a preallocation goes.
	out := make([]byte, 0, min(size, 64<<20))
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		item := it.Item()
		if len(item.Key()) != len(prefix)+4 {
			continue // the header, or a nested key
		}
		if err := readValue(item, func(v []byte) error {
			out = append(out, v...)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("only %d of its %d bytes are present", len(out), size)
	}
	return out, nil
}

// deletePrefix deletes every key that starts with prefix.
func deletePrefix(txn *badger.Txn, prefix []byte) error {
	var keys [][]byte
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	for it.Seek(prefix); it.Valid(); it.Next() {
		keys = append(keys, it.Item().KeyCopy(nil))
	}
	it.Close()
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// scanBlobs reads every blob under namespace ns, each at ns+<owner>+"/",
// with one iterator, and calls f with each owner and its data, or the
// error reading it would return. One iterator over the namespace costs
// what a single getBlob does: each getBlob opens an iterator over every
// table, and reading the settings of 300 runs that way was 9 % of a dry
// run's CPU.
func scanBlobs(txn *badger.Txn, ns string, f func(owner string, data []byte, err error)) error {
	var (
		owner string
		data  []byte
		size  uint64
		err   error
		open  bool
	)
	done := func() {
		if !open {
			return
		}
		if err == nil && uint64(len(data)) != size {
			err = fmt.Errorf("only %d of its %d bytes are present", len(data), size)
		}
		if err != nil {
			data = nil
		}
		f(owner, data, err)
		open = false
	}
	prefix := []byte(ns)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		item := it.Item()
		rest := item.Key()[len(prefix):]
		slash := bytes.IndexByte(rest, '/')
		if slash <= 0 {
			continue
		}
		id, tail := rest[:slash], rest[slash+1:]
		switch len(tail) {
		case 0: // the header
			done()
			owner, data, size, err, open = string(id), nil, 0, nil, true
			err = readValue(item, func(v []byte) error {
				if len(v) != 8 {
					return errors.New("its length header is damaged")
				}
				size = binary.BigEndian.Uint64(v)
				return nil
			})
			if err == nil {
				// The header is trusted only as far as a preallocation goes.
				data = make([]byte, 0, min(size, 64<<20))
			}
		case 4: // a chunk
			if !open || string(id) != owner || err != nil {
				continue // a chunk without its header is no blob
			}
			err = readValue(item, func(v []byte) error {
				data = append(data, v...)
				return nil
			})
		}
	}
	done()
	return nil
}
