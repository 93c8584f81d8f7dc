package rpc

import (
	"context"
	"sync"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
)

// runState is the session's activity as an RPC client sees it. pi's isStreaming is true from
// agent_start until agent_end has been written, so a client that has read agent_end finds the agent
// idle. pi-go's session stays busy a little longer (it decides on retries and compactions after the
// run), so RPC follows the events instead, and a prompt sent in that tail waits for it to settle
// rather than being refused.
type runState struct {
	mu        sync.Mutex
	streaming bool
	// progress is closed and replaced when the session goes on by itself: a run, a retry or a
	// compaction starts.
	progress chan struct{}
	// prompts holds a channel per prompt call still in progress, closed when the call returns.
	prompts map[chan struct{}]struct{}
	// testHookBegin, when set, is called after a prompt call is registered (with the lock held).
	testHookBegin func()
}

func newRunState(sess *harness.Session) *runState {
	return &runState{streaming: sess.Agent().IsRunning(), progress: make(chan struct{}), prompts: map[chan struct{}]struct{}{}}
}

// observe updates the state from an event before the event is written.
func (r *runState) observe(e harness.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Type {
	case string(loop.EventAgentStart):
		r.streaming = true
	case string(loop.EventAgentEnd):
		r.streaming = false
		return
	case harness.EventAutoRetryStart, harness.EventCompactionStart:
	default:
		return
	}
	close(r.progress)
	r.progress = make(chan struct{})
}

func (r *runState) isStreaming() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.streaming
}

// beginPrompt registers a prompt call. It returns the calls already in progress, the progress channel
// and whether a run is streaming, all as of now, and the function to call when the call returns.
func (r *runState) beginPrompt() (earlier []chan struct{}, progress chan struct{}, streaming bool, end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ch := range r.prompts {
		earlier = append(earlier, ch)
	}
	done := make(chan struct{})
	r.prompts[done] = struct{}{}
	if r.testHookBegin != nil {
		defer r.testHookBegin()
	}
	return earlier, r.progress, r.streaming, func() {
		r.mu.Lock()
		delete(r.prompts, done)
		r.mu.Unlock()
		close(done)
	}
}

// awaitSettled waits, when the last run is over but the call that started it has not returned yet,
// for that call to return (pi would start the new prompt at once; pi-go finishes the old operation
// first). It stops waiting as soon as the session goes on by itself (a retry, a compaction or a new
// run), since then the session is busy and the prompt is queued or refused as it says.
func (s *server) awaitSettled(earlier []chan struct{}, progress chan struct{}, streaming bool) {
	if len(earlier) == 0 || streaming || s.sess.IsRetrying() || s.sess.IsCompacting() {
		return
	}
	for _, done := range earlier {
		select {
		case <-done:
		case <-progress:
			return
		case <-s.runCtx.Done():
			return
		}
	}
}

// waitPrompts waits until the prompt calls in progress now have returned, or ctx ends.
func (r *runState) waitPrompts(ctx context.Context) {
	r.mu.Lock()
	var pending []chan struct{}
	for ch := range r.prompts {
		pending = append(pending, ch)
	}
	r.mu.Unlock()
	for _, done := range pending {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// quiesce aborts whatever runs and waits until the prompt calls in progress have returned, so the
// session operation that follows (compaction, new session, switch, fork, clone) finds the previous
// operation finished: the session's own Abort waits for the agent only, not for the bookkeeping
// after a run, and pi answers these commands on an idle session.
func (s *server) quiesce() {
	s.sess.Abort()
	s.runs.waitPrompts(s.runCtx)
}
