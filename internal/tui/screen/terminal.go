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
	// alt: Enter switches to the alternate screen and turns mouse reporting on (fullscreen mode);
	// inAlt says the terminal is on it now.
	alt, inAlt bool
}

// Mode sequences of fullscreen mode: the alternate screen, and mouse reporting of presses, drags
// and the wheel in SGR encoding.
const (
	altOn    = "\x1b[?1049h"
	altOff   = "\x1b[?1049l"
	mouseOn  = "\x1b[?1002h\x1b[?1006h"
	mouseOff = "\x1b[?1006l\x1b[?1002l"
)

// SetAlternate says whether Enter takes the alternate screen and the mouse (fullscreen mode).
func (t *Terminal) SetAlternate(alt bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.alt = alt
}

// SwitchAlternate changes mode while the UI runs (tuiMode changed in /settings): it enters or leaves
// the alternate screen and mouse reporting at once.
func (t *Terminal) SwitchAlternate(alt bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.alt = alt
	switch {
	case alt && !t.inAlt:
		_, _ = io.WriteString(t.out, altOn+mouseOn)
		t.inAlt = true
	case !alt && t.inAlt:
		_, _ = io.WriteString(t.out, mouseOff+altOff)
		t.inAlt = false
	}
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
	seq := hideCursor + pasteOn
	if t.alt && !t.inAlt {
		seq = altOn + mouseOn + seq
		t.inAlt = true
	}
	_, _ = io.WriteString(t.out, seq)
	return nil
}

// Leave restores the terminal as it was before Enter.
func (t *Terminal) Leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	seq := pasteOff + showCursor
	if t.inAlt {
		// Only once: leaving the alternate screen again would move the cursor back to where it
		// was when it was entered, above whatever was printed since.
		seq = mouseOff + altOff + seq
		t.inAlt = false
	}
	_, _ = io.WriteString(t.out, seq)
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

// OutputIsTerminal reports whether the output is a terminal.
func (t *Terminal) OutputIsTerminal() bool { return t.outFd >= 0 }

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
