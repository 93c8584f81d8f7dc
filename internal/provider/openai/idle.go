package openai

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// The cancellation causes of a call the idle watch ended.
var (
	// errIdle: no bytes arrived for the idle timeout.
	errIdle = errors.New("idle timeout")
	// errNoContent: bytes kept arriving (keep-alive comments, empty deltas, a body trickling in), but
	// no content for the content timeout.
	errNoContent = errors.New("no content")
)

// drainTimeout bounds the wait for the end of the body after [DONE].
const drainTimeout = 2 * time.Second

// clock is the time source of the idle watch; tests replace it to fire timeouts on cue.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

// idleWatch cancels a call, from sending the request to the last byte of the stream, when no bytes
// arrive for timeout (cause errIdle) or no content arrives for contentTimeout (cause errNoContent); a
// timeout of 0 or less is off. Reads only store a timestamp; one timer re-arms itself for the nearer
// of the two deadlines, so a fast stream costs no timer operations.
type idleWatch struct {
	clock       clock
	cancel      context.CancelCauseFunc
	last        atomic.Int64 // UnixNano of the last byte
	lastContent atomic.Int64 // UnixNano of the last content
	fired       atomic.Bool

	mu             sync.Mutex
	timeout        time.Duration
	contentTimeout time.Duration
	timer          timer
	done           bool
}

func startIdleWatch(c clock, timeout, contentTimeout time.Duration, cancel context.CancelCauseFunc) *idleWatch {
	w := &idleWatch{clock: c, timeout: timeout, contentTimeout: contentTimeout, cancel: cancel}
	now := c.Now().UnixNano()
	w.last.Store(now)
	w.lastContent.Store(now)
	w.mu.Lock()
	w.arm(now)
	w.mu.Unlock()
	return w
}

// touch records that bytes arrived.
func (w *idleWatch) touch() { w.last.Store(w.clock.Now().UnixNano()) }

// touchContent records that content arrived, with the bytes last read: the chunk was parsed from them
// (this costs no clock read per chunk).
func (w *idleWatch) touchContent() { w.lastContent.Store(w.last.Load()) }

// quiet is the time since the last byte.
func (w *idleWatch) quiet() time.Duration {
	return time.Duration(w.clock.Now().UnixNano() - w.last.Load())
}

// arm sets the timer for the nearer deadline, counted from the last byte and the last content, as of
// now. Callers hold mu.
func (w *idleWatch) arm(now int64) {
	next := time.Duration(math.MaxInt64)
	if w.timeout > 0 {
		next = w.timeout - time.Duration(now-w.last.Load())
	}
	if w.contentTimeout > 0 {
		next = min(next, w.contentTimeout-time.Duration(now-w.lastContent.Load()))
	}
	switch {
	case next == math.MaxInt64:
		if w.timer != nil {
			w.timer.Stop()
		}
	case w.timer == nil:
		w.timer = w.clock.AfterFunc(max(next, 0), w.check)
	default:
		w.timer.Reset(max(next, 0))
	}
}

func (w *idleWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	now := w.clock.Now().UnixNano()
	var cause error
	switch {
	case w.timeout > 0 && time.Duration(now-w.last.Load()) >= w.timeout:
		cause = errIdle
	case w.contentTimeout > 0 && time.Duration(now-w.lastContent.Load()) >= w.contentTimeout:
		cause = errNoContent
	default:
		w.arm(now)
		return
	}
	w.done = true
	w.fired.Store(true)
	w.cancel(cause)
}

// answered is called once the answer is complete ([DONE]): no more content is due, and the rest of the
// body gets at most d, counted from the last byte.
func (w *idleWatch) answered(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.contentTimeout = 0
	if w.timeout <= 0 || w.timeout > d {
		w.timeout = d
	}
	w.arm(w.clock.Now().UnixNano())
}

// stop ends the watch; it reports whether a timeout had fired.
func (w *idleWatch) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.fired.Load()
}
