package rpc

import (
	"context"
	"sync"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
)

// runState is the session's activity as an RPC client sees it. pi 1.6's isStreaming is true from the
// start of a prompt's run until its agent_settled has been written, so a client that has read
// agent_settled finds the session idle; RPC follows the events. A prompt sent after agent_end but
// before agent_settled (a client written for pi 0.73.1, which had no agent_settled) waits for the
// settle rather than being refused: in pi the two events come back to back, in pi-go the retry and
// compaction checks run between them.
type runState struct {
	mu sync.Mutex
	// streaming: from agent_start to agent_settled (get_state's isStreaming); inRun: from agent_start
	// to agent_end.
	streaming, inRun bool
	// progress is closed and replaced when the session goes on by itself: a run, a retry or a
	// compaction starts.
	progress chan struct{}
	// prompts holds a channel per prompt call still in progress, closed when the call returns;
	// compacts one per compact command not yet answered, closed once its response is written.
	prompts, compacts map[chan struct{}]struct{}
	// testHookBegin, when set, is called after a prompt call is registered (with the lock held).
	testHookBegin func()
}

func newRunState(sess *harness.Session) *runState {
	running := sess.Agent().IsRunning()
	return &runState{streaming: running, inRun: running, progress: make(chan struct{}),
		prompts: map[chan struct{}]struct{}{}, compacts: map[chan struct{}]struct{}{}}
}

// observe updates the state from an event before the event is written.
func (r *runState) observe(e harness.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Type {
	case string(loop.EventAgentStart):
		r.streaming, r.inRun = true, true
	case string(loop.EventAgentEnd):
		r.inRun = false
		return
	case harness.EventAgentSettled:
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
// and whether a run is between agent_start and agent_end, all as of now, and the function to call when
// the call returns.
func (r *runState) beginPrompt() (earlier []chan struct{}, progress chan struct{}, inRun bool, end func()) {
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
	return earlier, r.progress, r.inRun, func() {
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
func (s *server) awaitSettled(earlier []chan struct{}, progress chan struct{}, inRun bool) {
	if len(earlier) == 0 || inRun || s.sess.IsRetrying() || s.sess.IsCompacting() {
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

// beginCompact registers a compact command; the returned function is called once it has answered.
func (r *runState) beginCompact() (answered func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := make(chan struct{})
	r.compacts[done] = struct{}{}
	return func() {
		r.mu.Lock()
		delete(r.compacts, done)
		r.mu.Unlock()
		close(done)
	}
}

// waitPrompts waits until the prompt calls in progress now have returned, or ctx ends.
func (r *runState) waitPrompts(ctx context.Context) { r.wait(ctx, r.prompts) }

// waitCompacts waits until the compact commands in progress now have answered, or ctx ends.
func (r *runState) waitCompacts(ctx context.Context) { r.wait(ctx, r.compacts) }

func (r *runState) wait(ctx context.Context, calls map[chan struct{}]struct{}) {
	r.mu.Lock()
	var pending []chan struct{}
	for ch := range calls {
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
