package screen

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/term"
)

// Terminal puts the real terminal into the mode the UI needs (raw input, hidden cursor, bracketed
// paste) and gives it back. With an input or output that is not a terminal (tests) it only writes
// the mode sequences.
type Terminal struct {
	out   io.Writer
	inFd  int // -1 when the input is not a terminal
	outFd int // -1 when the output is not a terminal
	saved *term.State
	mu    sync.Mutex
}

// OpenTerminal wraps the program's input and output; nothing changes until Enter.
func OpenTerminal(in io.Reader, out io.Writer) *Terminal {
	t := &Terminal{out: out, inFd: -1, outFd: -1}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.inFd = int(f.Fd())
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.outFd = int(f.Fd())
	}
	return t
}

// Size is the terminal's size, (0, 0) when unknown.
func (t *Terminal) Size() (int, int) {
	if t.outFd < 0 {
		return 0, 0
	}
	w, h, err := term.GetSize(t.outFd)
	if err != nil {
		return 0, 0
	}
	return w, h
}

// Enter switches to raw input and turns on the modes the UI uses.
func (t *Terminal) Enter() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inFd >= 0 && t.saved == nil {
		st, err := term.MakeRaw(t.inFd)
		if err != nil {
			return err
		}
		t.saved = st
	}
	_, _ = io.WriteString(t.out, hideCursor+pasteOn)
	return nil
}

// Leave restores the terminal as it was before Enter.
func (t *Terminal) Leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.out, pasteOff+showCursor)
	if t.saved != nil {
		_ = term.Restore(t.inFd, t.saved)
		t.saved = nil
	}
}

// WatchResize calls fn with the new size after every SIGWINCH until stop is called.
func (t *Terminal) WatchResize(fn func(w, h int)) (stop func()) {
	if t.outFd < 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-ch:
				if w, h := t.Size(); w > 0 {
					fn(w, h)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		<-exited
	}
}

// InputIsTerminal reports whether the input is a terminal (and not a pipe or a test's reader).
func (t *Terminal) InputIsTerminal() bool { return t.inFd >= 0 }

// TerminalReflows reports whether the terminal re-wraps lines when it narrows. xterm and GNU screen
// do not; tmux and nearly every other modern terminal do.
func TerminalReflows() bool {
	if os.Getenv("TMUX") != "" {
		return true
	}
	return os.Getenv("XTERM_VERSION") == "" && os.Getenv("STY") == ""
}
