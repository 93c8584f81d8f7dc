package tui

import "sync"

// WarningSink collects the problems a session reports while it runs (a failed session write, a model
// that could not be restored): pass its Warn as harness.Options.OnWarning and the sink in
// Options.WarningSink, and the TUI shows each one as a warning line. Warnings reported before the TUI
// starts are kept and shown first. It is safe for concurrent use.
type WarningSink struct {
	mu      sync.Mutex
	pending []string
	deliver func(string)
}

// NewWarningSink returns an empty sink.
func NewWarningSink() *WarningSink { return &WarningSink{} }

// Warn reports a problem; nil is ignored.
func (w *WarningSink) Warn(err error) {
	if w == nil || err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.deliver != nil {
		w.deliver(err.Error())
		return
	}
	w.pending = append(w.pending, err.Error())
}

// attach starts delivering to fn, first what was reported so far; detach with nil.
func (w *WarningSink) attach(fn func(string)) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deliver = fn
	if fn != nil {
		for _, p := range w.pending {
			fn(p)
		}
		w.pending = nil
	}
}

// warningMsg is a warning reported by the session while the TUI runs.
type warningMsg string
