package tools

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// minPart is the fewest files worth their own git cat-file process when
// files are unpacked from git.
const minPart = 256

// scanBlobs reads the contents of files and calls fn for each, in order,
// from one goroutine. It stops early, without error, when ctx is cancelled
// by the caller.
func (s *Set) scanBlobs(ctx context.Context, files []entry, fn func(i int, data []byte)) error {
	err := scanFiles(ctx, s, files, bytes.Clone, func(i int, data []byte) bool {
		fn(i, data)
		return true
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// scanned is what work made of file i.
type scanned[T any] struct {
	i int
	v T
}

// scanFiles reads files and runs work on each on every core, and hands
// the results to emit in file order. work must not keep the slice it is
// given past its return (copy what it keeps): reading into the same
// buffers spares the garbage collector the size of the repository. emit returns false to stop: files
// are then no longer read. Files come from the work tree when it holds the
// reviewed head (see worktree), each checked against its object id, and
// otherwise are unpacked by git cat-file processes, one per core.
func scanFiles[T any](ctx context.Context, s *Set, files []entry, work func(data []byte) T, emit func(i int, v T) bool) error {
	if len(files) == 0 {
		return nil
	}
	scanCtx, stop := context.WithCancel(ctx)
	defer stop()
	workers := runtime.GOMAXPROCS(0)
	results := make(chan scanned[T], 4*workers)
	scanErr := make(chan error, 1)
	fail := func(err error) {
		if scanCtx.Err() != nil {
			return // stopped or cancelled: not a failure of the reads
		}
		select {
		case scanErr <- err:
		default:
		}
		stop()
	}
	if s.worktree(ctx) {
		go scanDisk(scanCtx, s, files, workers, work, results, fail)
	} else {
		go scanGit(scanCtx, s, files, workers, work, results, fail)
	}
	// Put the results back in file order; the workers finish out of order.
	pending := map[int]T{}
	next, stopped := 0, false
	for r := range results {
		if stopped {
			continue // drain, so the workers can finish
		}
		pending[r.i] = r.v
		for {
			v, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if !emit(next-1, v) {
				stopped = true
				stop()
				break
			}
		}
	}
	select {
	case err := <-scanErr:
		if ctx.Err() == nil {
			return err
		}
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !stopped && next != len(files) {
		return fmt.Errorf("read %d of %d files", next, len(files))
	}
	return nil
}

// scanDisk runs workers that each take the next file in order, read it
// from the work tree (or, when its copy there is not the blob, through the
// run's cat-file) and run work on it. Taking files in order keeps the
// results emit waits for close together, and lets a search that has all it
// needs stop reading.
func scanDisk[T any](ctx context.Context, s *Set, files []entry, workers int, work func([]byte) T, results chan<- scanned[T], fail func(error)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				data, ok := s.fromDisk(files[i], buf)
				buf = data
				if !ok {
					var err error
					if files[i].limit > 0 {
						// Its size came from the work tree, whose copy
						// differs: the blob may be larger than wanted.
						// The size is corrected before emit reads it
						// (the channel orders the two).
						data, files[i].size, err = s.state.cat.blobMax(ctx, files[i].oid, files[i].limit)
					} else {
						data, err = s.blob(ctx, files[i].oid)
					}
					if err != nil {
						fail(fmt.Errorf("reading %s: %w", files[i].path, err))
						return
					}
				}
				select {
				case results <- scanned[T]{i, work(data)}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Wait()
	close(results)
}

// scanGit unpacks files with one git cat-file per core, since inflating
// objects is the bulk of the work and one process does it on one core;
// each reads a contiguous run of paths, which keeps git's delta base cache
// warm. Workers run work on what they read.
func scanGit[T any](ctx context.Context, s *Set, files []entry, workers int, work func([]byte) T, results chan<- scanned[T], fail func(error)) {
	type job struct {
		i    int
		data []byte
	}
	jobs := make(chan job, 4*workers)
	parts := max(1, min(workers, len(files)/minPart))
	var readers sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(files)/parts, (p+1)*len(files)/parts
		readers.Go(func() {
			err := s.streamBlobs(ctx, files[lo:hi], func(i int, data []byte) {
				select {
				case jobs <- job{lo + i, data}:
				case <-ctx.Done():
				}
			})
			if err != nil {
				fail(err)
			}
		})
	}
	go func() {
		readers.Wait()
		close(jobs)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				select {
				case results <- scanned[T]{j.i, work(j.data)}:
				case <-ctx.Done():
				}
			}
		})
	}
	wg.Wait()
	close(results)
}
