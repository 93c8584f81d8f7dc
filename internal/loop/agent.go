package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/toolargs"
)

// The precondition errors of Prompt and Continue, with pi's texts.
var (
	ErrAlreadyProcessingPrompt = errors.New("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.")
	ErrAlreadyProcessing       = errors.New("Agent is already processing. Wait for completion before continuing.")
	ErrNoMessagesToContinue    = errors.New("No messages to continue from")
	ErrContinueFromAssistant   = errors.New("Cannot continue from message role: assistant")
	ErrNoPromptMessages        = errors.New("prompt needs at least one message")
)

// Agent owns a transcript and runs the loop over it: one run at a time, each turning a prompt (or a
// continuation) into as many turns as the model needs. Its methods are safe for concurrent use.
//
// Events reach subscribers synchronously, in order and never concurrently, on the goroutine that called
// Prompt or Continue; the Agent's own state is updated before subscribers see an event. A subscriber
// may call any method of the Agent (Steer, State, Abort...) but must not block for long.
type Agent struct {
	cfg Config
	// args validates tool arguments, compiling each tool's schema once.
	args toolargs.Cache

	mu            sync.Mutex
	state         State
	streaming     streamingAnswer // State().StreamingMessage; state's own field stays nil
	sessionID     string
	toolExecution ExecutionMode
	steering      messageQueue
	followUp      messageQueue
	active        *activeRun

	subMu   sync.Mutex
	nextSub uint64
	subs    atomic.Pointer[[]subscriber]
}

type activeRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

type subscriber struct {
	id uint64
	fn func(Event)
}

// placeholderModel stands in when no model was set, as pi's "unknown" model does.
var placeholderModel = provider.Model{ID: "unknown", Name: "unknown", API: "unknown", Provider: "unknown"}

// NewAgent builds an idle Agent. initial's Model, ThinkingLevel, Tools and Messages are copied; its
// runtime fields (IsStreaming, StreamingMessage, PendingToolCalls, ErrorMessage) are ignored. A
// SystemPrompt or Tools become a leading system message declaring them (timestamp 0, as pi's Agent
// does) unless Messages already start with one: the prompt and the tools live in the transcript.
func NewAgent(cfg Config, initial State) *Agent {
	a := &Agent{cfg: cfg}
	a.state = State{
		Model:            initial.Model,
		ThinkingLevel:    initial.ThinkingLevel,
		Tools:            slices.Clone(initial.Tools),
		Messages:         slices.Clone(initial.Messages),
		PendingToolCalls: map[string]bool{},
	}
	if len(initial.Messages) == 0 || initial.Messages[0].Role() != provider.RoleSystem {
		if head := initialSystemMessage(initial.SystemPrompt, initial.Tools); head != nil {
			a.state.Messages = append([]provider.Message{head}, a.state.Messages...)
		}
	}
	if a.state.ThinkingLevel == "" {
		a.state.ThinkingLevel = provider.ThinkingOff
	}
	a.sessionID = cfg.StreamOptions.SessionID
	a.toolExecution = cfg.ToolExecution
	a.steering.mode = normaliseMode(cfg.SteeringMode)
	a.followUp.mode = normaliseMode(cfg.FollowUpMode)
	return a
}

// Subscribe adds fn to the listeners (called in subscription order). The returned function removes it;
// calling it more than once is harmless. A listener added or removed during an event takes effect from
// the next event.
func (a *Agent) Subscribe(fn func(Event)) (unsubscribe func()) {
	a.subMu.Lock()
	id := a.nextSub
	a.nextSub++
	var next []subscriber
	if cur := a.subs.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, subscriber{id: id, fn: fn})
	a.subs.Store(&next)
	a.subMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.subMu.Lock()
			defer a.subMu.Unlock()
			cur := a.subs.Load()
			if cur == nil {
				return
			}
			next := slices.DeleteFunc(slices.Clone(*cur), func(s subscriber) bool { return s.id == id })
			a.subs.Store(&next)
		})
	}
}

// emit applies the event to the state, then hands it to every subscriber.
func (a *Agent) emit(ev *Event) {
	a.mu.Lock()
	a.reduce(ev)
	a.mu.Unlock()
	if subs := a.subs.Load(); subs != nil {
		for _, s := range *subs {
			s.fn(*ev)
		}
	}
}

// Prompt runs the loop with msgs as the prompt messages and returns when the run is over. Provider
// failures end up in the transcript (an assistant message with stopReason error or aborted), never in
// the returned error, which reports only preconditions: a run already active (nothing is queued), no
// messages. Cancelling ctx aborts the run like Abort does.
func (a *Agent) Prompt(ctx context.Context, msgs ...provider.Message) error {
	if len(msgs) == 0 {
		return ErrNoPromptMessages
	}
	for i, m := range msgs {
		if m == nil {
			return fmt.Errorf("prompt message %d is nil", i)
		}
	}
	a.mu.Lock()
	if a.active != nil {
		a.mu.Unlock()
		return ErrAlreadyProcessingPrompt
	}
	r := a.startRunLocked(ctx)
	a.mu.Unlock()
	a.execute(r, func() error { return r.runPrompt(slices.Clone(msgs)) })
	return nil
}

// PromptText prompts with one user message made of text followed by the images.
func (a *Agent) PromptText(ctx context.Context, text string, images ...provider.Content) error {
	return a.Prompt(ctx, provider.NewUserMessage(text, images...))
}

// Continue resumes from the current transcript, as pi's continue(): when the last message is a user,
// tool result or other non-assistant message, the loop runs without new messages (retries, overflow
// recovery). When it is an assistant message, queued steering messages (then follow-ups) become the
// prompt of a new run; with nothing queued it is an error.
func (a *Agent) Continue(ctx context.Context) error {
	a.mu.Lock()
	if a.active != nil {
		a.mu.Unlock()
		return ErrAlreadyProcessing
	}
	n := len(a.state.Messages)
	if n == 0 || onlySystemMessages(a.state.Messages) {
		a.mu.Unlock()
		return ErrNoMessagesToContinue
	}
	if a.state.Messages[n-1].Role() == provider.RoleAssistant {
		if steering := a.steering.drain(); len(steering) > 0 {
			r := a.startRunLocked(ctx)
			// The dequeued batch is the prompt; polling again at once would take the next one too.
			r.skipInitialSteering = true
			a.mu.Unlock()
			a.execute(r, func() error { return r.runPrompt(steering) })
			return nil
		}
		if followUps := a.followUp.drain(); len(followUps) > 0 {
			r := a.startRunLocked(ctx)
			a.mu.Unlock()
			a.execute(r, func() error { return r.runPrompt(followUps) })
			return nil
		}
		a.mu.Unlock()
		return ErrContinueFromAssistant
	}
	r := a.startRunLocked(ctx)
	a.mu.Unlock()
	a.execute(r, r.runContinue)
	return nil
}

// Steer queues a message to be delivered after the current turn's tool calls (or right after the next
// prompt's messages when idle).
func (a *Agent) Steer(m provider.Message) {
	a.mu.Lock()
	a.steering.push(m)
	a.mu.Unlock()
}

// FollowUp queues a message to be delivered only when the run would otherwise stop.
func (a *Agent) FollowUp(m provider.Message) {
	a.mu.Lock()
	a.followUp.push(m)
	a.mu.Unlock()
}

// Abort cancels the active run's context (the stream and every running tool see it). It is a no-op when
// idle and leaves both queues as they are.
func (a *Agent) Abort() {
	a.mu.Lock()
	if a.active != nil {
		a.active.cancel()
	}
	a.mu.Unlock()
}

// WaitForIdle returns when no run is active (at once when idle), or with ctx's error. A subscriber must
// not call it: the run waits for the subscriber.
func (a *Agent) WaitForIdle(ctx context.Context) error {
	a.mu.Lock()
	active := a.active
	a.mu.Unlock()
	if active == nil {
		return nil
	}
	select {
	case <-active.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// IsRunning reports whether a run is active.
func (a *Agent) IsRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.active != nil
}

func (a *Agent) startRunLocked(parent context.Context) *run {
	ctx, cancel := context.WithCancel(parent)
	a.active = &activeRun{cancel: cancel, done: make(chan struct{})}
	a.state.IsStreaming = true
	a.streaming = streamingAnswer{}
	a.state.ErrorMessage = ""
	return &run{a: a, ctx: ctx}
}

// execute runs body as the active run and always settles the Agent afterwards. A body error is a
// failure outside the stream contract (pi-reference §2.5); so is a panic of a hook, the stream function
// or a subscriber, as a throw is in pi: the run ends through the failure path instead of taking the
// process down.
func (a *Agent) execute(r *run, body func() error) {
	defer a.finishRun()
	if err := guard(body); err != nil {
		// A subscriber that panics again while the failure is reported only cuts the report short.
		_ = guard(func() error { a.handleRunFailure(r, err); return nil })
	}
}

// handleRunFailure ends the run with a synthetic assistant error message, delivered as pi 1.6 does: its
// message_start and message_end (so the transcript and the session file get it), turn_end, and
// agent_end with that message alone.
func (a *Agent) handleRunFailure(r *run, err error) {
	a.mu.Lock()
	model := a.state.Model
	a.mu.Unlock()
	if model == nil {
		model = &placeholderModel
	}
	reason := provider.StopReasonError
	if r.ctx.Err() != nil {
		reason = provider.StopReasonAborted
	}
	msg := &provider.AssistantMessage{
		Content:      []provider.Content{provider.TextContent("")},
		API:          model.API,
		Provider:     model.Provider,
		Model:        model.ID,
		StopReason:   reason,
		ErrorMessage: err.Error(),
		Timestamp:    provider.Now(),
	}
	a.emit(&Event{Type: EventMessageStart, Message: msg})
	a.emit(&Event{Type: EventMessageEnd, Message: msg})
	a.emit(&Event{Type: EventTurnEnd, Message: msg, ToolResults: []*provider.ToolResultMessage{}})
	a.emit(&Event{Type: EventAgentEnd, Messages: []provider.Message{msg}})
}

func (a *Agent) finishRun() {
	a.mu.Lock()
	active := a.active
	a.active = nil
	a.state.IsStreaming = false
	a.streaming = streamingAnswer{}
	a.state.PendingToolCalls = map[string]bool{}
	a.mu.Unlock()
	if active != nil {
		active.cancel()
		close(active.done)
	}
}
