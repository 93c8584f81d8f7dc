package tui

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/term"
)

// terminal puts the real terminal into the mode the UI needs (raw input, hidden cursor, bracketed
// paste) and gives it back. With an input or output that is not a terminal (tests) it only writes
// the mode sequences.
type terminal struct {
	out   io.Writer
	inFd  int // -1 when the input is not a terminal
	outFd int // -1 when the output is not a terminal
	saved *term.State
	mu    sync.Mutex
}

func openTerminal(in io.Reader, out io.Writer) *terminal {
	t := &terminal{out: out, inFd: -1, outFd: -1}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.inFd = int(f.Fd())
	}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.outFd = int(f.Fd())
	}
	return t
}

// size is the terminal's size, (0, 0) when unknown.
func (t *terminal) size() (int, int) {
	if t.outFd < 0 {
		return 0, 0
	}
	w, h, err := term.GetSize(t.outFd)
	if err != nil {
		return 0, 0
	}
	return w, h
}

// enter switches to raw input and turns on the modes the UI uses.
func (t *terminal) enter() error {
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

// leave restores the terminal as it was before enter.
func (t *terminal) leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.out, pasteOff+showCursor)
	if t.saved != nil {
		_ = term.Restore(t.inFd, t.saved)
		t.saved = nil
	}
}

// watchResize calls fn with the new size after every SIGWINCH until stop is called.
func (t *terminal) watchResize(fn func(w, h int)) (stop func()) {
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
				if w, h := t.size(); w > 0 {
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
