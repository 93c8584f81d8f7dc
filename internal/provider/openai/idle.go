package openai

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errIdle is the cancellation cause of a stream that went quiet.
var errIdle = errors.New("idle timeout")

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

// idleWatch cancels a call when no bytes arrive for timeout: from sending the request to the last
// byte of the stream. Reads only store a timestamp; the timer re-arms itself for the remaining time,
// so a fast stream costs no timer operations.
type idleWatch struct {
	clock   clock
	timeout time.Duration
	cancel  context.CancelCauseFunc
	last    atomic.Int64 // UnixNano of the last activity
	fired   atomic.Bool

	mu    sync.Mutex
	timer timer
	done  bool
}

func startIdleWatch(c clock, timeout time.Duration, cancel context.CancelCauseFunc) *idleWatch {
	w := &idleWatch{clock: c, timeout: timeout, cancel: cancel}
	w.touch()
	if timeout > 0 {
		w.mu.Lock()
		w.timer = c.AfterFunc(timeout, w.check)
		w.mu.Unlock()
	}
	return w
}

func (w *idleWatch) touch() { w.last.Store(w.clock.Now().UnixNano()) }

func (w *idleWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	quiet := time.Duration(w.clock.Now().UnixNano() - w.last.Load())
	if quiet < w.timeout {
		w.timer.Reset(w.timeout - quiet)
		return
	}
	w.done = true
	w.fired.Store(true)
	w.cancel(errIdle)
}

// shorten lowers the timeout to d, counted from the last activity.
func (w *idleWatch) shorten(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || (w.timeout > 0 && w.timeout <= d) {
		return
	}
	w.timeout = d
	if w.timer == nil {
		w.timer = w.clock.AfterFunc(d, w.check)
		return
	}
	w.timer.Reset(d)
}

// stop ends the watch; it reports whether the timeout had fired.
func (w *idleWatch) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.fired.Load()
}
