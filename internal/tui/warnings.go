package tui

import "sync"

// relay hands values to the running TUI: before one is attached (and after it detaches) they are
// kept, and the next attach delivers them first, in order. It is safe for concurrent use.
type relay[T any] struct {
	mu      sync.Mutex
	pending []T
	deliver func(T)
}

func (r *relay[T]) send(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deliver != nil {
		r.deliver(v)
		return
	}
	r.pending = append(r.pending, v)
}

// attach starts delivering to fn, first what was sent so far; detach with nil.
func (r *relay[T]) attach(fn func(T)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliver = fn
	if fn != nil {
		for _, v := range r.pending {
			fn(v)
		}
		r.pending = nil
	}
}

// WarningSink collects the problems a session reports while it runs (a failed session write, a model
// that could not be restored): pass its Warn as harness.Options.OnWarning and the sink in
// Options.WarningSink, and the TUI shows each one as a warning line. Warnings reported before the TUI
// starts are kept and shown first. It is safe for concurrent use.
type WarningSink struct {
	relay relay[string]
}

// NewWarningSink returns an empty sink.
func NewWarningSink() *WarningSink { return &WarningSink{} }

// Warn reports a problem; nil is ignored.
func (w *WarningSink) Warn(err error) {
	if w == nil || err == nil {
		return
	}
	w.relay.send(err.Error())
}

// attach starts delivering to fn, first what was reported so far; detach with nil.
func (w *WarningSink) attach(fn func(string)) {
	if w == nil {
		return
	}
	w.relay.attach(fn)
}

// warningMsg is a warning reported by the session while the TUI runs.
type warningMsg string
