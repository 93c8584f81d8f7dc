package blockstream

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout ends a call whose server sends nothing for this long (pi 1.6's
// httpIdleTimeoutMs default).
const DefaultIdleTimeout = 300 * time.Second

// DefaultReasoningIdleTimeout is the default for calls that ask a model to think: a server that
// hides the reasoning may send nothing for minutes at high effort (pi's SDKs allow 10 minutes).
const DefaultReasoningIdleTimeout = 10 * time.Minute

// ErrIdle is the cancellation cause of a call the watchdog ended.
var ErrIdle = errors.New("idle timeout")

// Watchdog cancels a call when Touch is not called for its timeout: no response, or a stream that
// stalled. Touch only stores a timestamp; the timer re-arms itself for the time left.
type Watchdog struct {
	timeout time.Duration
	cancel  context.CancelCauseFunc
	last    atomic.Int64

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// IdleTimeout is the timeout of one call: the call's own (StreamOptions.IdleTimeout), else the
// default for a call that asks for thinking or not; negative means none.
func IdleTimeout(perCall time.Duration, thinking bool) time.Duration {
	switch {
	case perCall != 0:
		return perCall
	case thinking:
		return DefaultReasoningIdleTimeout
	}
	return DefaultIdleTimeout
}

// StartWatchdog watches a call whose context cancel cancels; timeout <= 0 watches nothing.
func StartWatchdog(timeout time.Duration, cancel context.CancelCauseFunc) *Watchdog {
	w := &Watchdog{timeout: timeout, cancel: cancel}
	if timeout <= 0 {
		return w
	}
	w.last.Store(time.Now().UnixNano())
	w.mu.Lock()
	w.timer = time.AfterFunc(timeout, w.check)
	w.mu.Unlock()
	return w
}

// Touch records that the server sent something.
func (w *Watchdog) Touch() {
	if w.timeout > 0 {
		w.last.Store(time.Now().UnixNano())
	}
}

func (w *Watchdog) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	quiet := time.Duration(time.Now().UnixNano() - w.last.Load())
	if quiet >= w.timeout {
		w.cancel(ErrIdle)
		return
	}
	w.timer.Reset(w.timeout - quiet)
}

// Stop ends the watch.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// Fired reports whether ctx was cancelled by a watchdog.
func Fired(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrIdle) }
