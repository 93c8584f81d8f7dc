package tui

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// ErrTerminalClosed ends Run when the terminal went away: its input reached end of file or failed
// (the window was closed, the connection dropped). Run has saved the session and stopped everything
// it started, as on /quit; the caller exits as after SIGHUP.
var ErrTerminalClosed = errors.New("the terminal was closed")

// hangupReader is the terminal's input. A read that finds the terminal gone calls onHangup once:
// end of file (in raw mode Ctrl+D is a key, so only a hung-up terminal ends), EIO or ENXIO.
// Without it Bubble Tea's input loop ends silently at end of file and the program runs on, with no
// one to quit it.
type hangupReader struct {
	*os.File
	once     sync.Once
	onHangup func()
}

func (r *hangupReader) Read(p []byte) (int, error) {
	n, err := r.File.Read(p)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) || errors.Is(err, syscall.ENXIO)) {
		r.once.Do(r.onHangup)
	}
	return n, err
}
