package scripttest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// TTYRun is the scripts' ttyrun program: `ttyrun COLS program args...`
// runs the program on a pseudo-terminal COLS columns wide, its standard
// input, output and error all the terminal, as from a user's shell, and
// prints what the terminal received (the terminal writes \r\n for \n).
// It exits with the program's code.
func TTYRun(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ttyrun COLS program [args...]")
		return 2
	}
	cols, err := strconv.Atoi(args[0])
	if err != nil || cols < 1 || cols > 1000 {
		fmt.Fprintf(os.Stderr, "ttyrun: %q is not a width in columns\n", args[0])
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: 24})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ttyrun:", err)
		return 2
	}
	// Reading the terminal ends with EIO once the program has exited and
	// closed its side.
	if _, err := io.Copy(os.Stdout, f); err != nil && !errors.Is(err, os.ErrClosed) && !strings.Contains(err.Error(), "input/output error") {
		fmt.Fprintln(os.Stderr, "ttyrun:", err)
	}
	f.Close()
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "ttyrun:", err)
		return 2
	}
	return 0
}

// cmdScreen checks what a terminal COLS wide would show of a file
// (ttyrun's output): `screen COLS file` draws each line as the terminal
// does (a carriage return goes back to the start of the line, ESC[K
// clears the rest, other escape sequences take no room), fails if a line
// redrawn in place (one with ESC[K) runs past COLS columns, where the
// terminal would wrap it and leave the wrapped part behind at each
// redraw, and writes the final screen to stdout, styles left out, for
// the lines after it to match. Other lines may wrap.
func cmdScreen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: screen COLS file")
	}
	cols, err := strconv.Atoi(args[0])
	ts.Check(err)
	var screen []string
	for i, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		var cur []rune
		col := 0
		for j := 0; j < len(line); {
			switch c := line[j]; {
			case c == '\r':
				col = 0
				j++
			case c == '\033' && j+1 < len(line) && line[j+1] == '[':
				k := j + 2
				for k < len(line) && (line[k] < 0x40 || line[k] > 0x7e) {
					k++
				}
				if k < len(line) && line[k] == 'K' {
					cur = cur[:min(col, len(cur))]
				}
				j = k + 1
			default:
				r, n := utf8.DecodeRuneInString(line[j:])
				if col < len(cur) {
					cur[col] = r
				} else {
					cur = append(cur, r)
				}
				col++
				j += n
				if col > cols && strings.Contains(line, "\033[K") {
					ts.Fatalf("line %d of %s, redrawn in place, runs past %d columns: %q", i+1, args[1], cols, line)
				}
			}
		}
		screen = append(screen, string(cur))
	}
	fmt.Fprint(ts.Stdout(), strings.Join(screen, "\n"))
}
