package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reviewdev/review/internal/git"
)

// catIdle is how long the cat-file process of a run waits for the next
// request before it is ended. A review's tool calls come in bursts a model
// turn apart; a run that is over, or a Set nobody closed, must not keep a
// git process forever. Starting one again costs a few milliseconds.
const catIdle = 30 * time.Second

// catFile is one long-lived git cat-file --batch process, shared by the
// calls of a run for objects read one at a time: files read_file_hunk
// shows, symlink targets, manifests, and files whose work-tree copy is not
// the committed one. It answers one request at a time.
type catFile struct {
	dir string

	mu    sync.Mutex
	cmd   *git.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	last  time.Time
	timer *time.Timer
}

// blob returns the content of one object, which must be a blob. When ctx
// ends first the process is killed (its answer is half read) and the next
// request starts another.
func (c *catFile) blob(ctx context.Context, oid string) ([]byte, error) {
	data, _, err := c.blobMax(ctx, oid, -1)
	return data, err
}

// blobMax is blob for an object that is not wanted past max bytes (max
// < 0: any size): a larger one is read past and not kept, and blobMax
// returns nil data and its size.
func (c *catFile) blobMax(ctx context.Context, oid string, max int64) ([]byte, int64, error) {
	if oid == "" || strings.ContainsAny(oid, " \t\r\n") {
		return nil, 0, fmt.Errorf("invalid object name %q", oid)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return nil, 0, err
		}
	}
	cmd := c.cmd
	// Killing git unblocks the reads below; the half-read stream cannot be
	// used again, so the process is dropped either way.
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	data, size, err := c.request(oid, max)
	if !stop() || err != nil {
		c.end()
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, err
	}
	c.last = time.Now()
	return data, size, nil
}

// request asks for one object and reads the answer; content past max
// bytes (max >= 0) is read past, not kept.
func (c *catFile) request(oid string, max int64) ([]byte, int64, error) {
	if _, err := io.WriteString(c.in, oid+"\n"); err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	// <oid> SP <type> SP <size> LF, or <name> SP missing LF
	fields := strings.Fields(header)
	if len(fields) == 2 && fields[1] == "missing" {
		return nil, 0, fmt.Errorf("object %s is missing from the repository", oid)
	}
	if len(fields) != 3 {
		return nil, 0, fmt.Errorf("git cat-file answered %q", strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, 0, fmt.Errorf("git cat-file answered %q", strings.TrimSpace(header))
	}
	if max >= 0 && size > max {
		// The content and its trailing LF, read past in small pieces.
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return nil, 0, fmt.Errorf("git cat-file: %w", err)
		}
		if fields[1] != "blob" {
			return nil, 0, fmt.Errorf("object %s is a %s, not a file", oid, fields[1])
		}
		return nil, size, nil
	}
	data := make([]byte, size+1) // the content and its trailing LF
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, 0, fmt.Errorf("git cat-file: %w", err)
	}
	if fields[1] != "blob" {
		return nil, 0, fmt.Errorf("object %s is a %s, not a file", oid, fields[1])
	}
	return data[:size], size, nil
}

// start starts the process and the timer that ends it when idle. The
// process does not belong to any one call's context: it outlives them.
func (c *catFile) start() error {
	cmd := git.Runner{Dir: c.dir}.Command(context.Background(), "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	c.cmd, c.in, c.out, c.last = cmd, in, bufio.NewReaderSize(out, 64<<10), time.Now()
	if c.timer == nil {
		c.timer = time.AfterFunc(catIdle, c.idle)
	} else {
		c.timer.Reset(catIdle)
	}
	return nil
}

// idle ends the process once it has had nothing to do for catIdle.
func (c *catFile) idle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return
	}
	if wait := catIdle - time.Since(c.last); wait > 0 {
		c.timer.Reset(wait)
		return
	}
	c.end()
}

// end closes git's input, which makes it exit, and reaps it.
func (c *catFile) end() {
	if c.cmd == nil {
		return
	}
	c.in.Close()
	cmd := c.cmd
	c.cmd, c.in, c.out = nil, nil, nil
	// A killed or finished git: its exit status says nothing more.
	go cmd.Wait()
}

// close ends the process now.
func (c *catFile) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.end()
	if c.timer != nil {
		c.timer.Stop()
	}
}
