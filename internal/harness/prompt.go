package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// NoModelSelectedMessage is pi's guidance when no model is available.
const NoModelSelectedMessage = "No model selected.\n\n" +
	"Set OPENAI_API_KEY (or another provider's key), use --base-url for any OpenAI-compatible server, " +
	"or add a provider to ~/.pi/agent/models.json, then select a model with /model or --model."

// Prompt sends a user message. While a run is active the message is queued as a steering message or a
// follow-up according to behavior (without one it is an error). Otherwise it starts a run and returns
// when the run, its automatic retries and any compaction it triggers have settled. Provider failures
// end up in the transcript, not in the returned error, which reports preconditions (no model, no key,
// busy without a behaviour).
func (s *Session) Prompt(ctx context.Context, text string, images []provider.Content, behavior StreamingBehavior) error {
	return s.PromptWithHooks(ctx, text, images, behavior, PromptHooks{})
}

// Disposition is what became of a prompt that was accepted (pi 1.6's preflight result).
type Disposition string

const (
	// DispositionStarted: the prompt started a run.
	DispositionStarted Disposition = "started"
	// DispositionQueued: a run was active, so the prompt was queued as a steering or follow-up message.
	DispositionQueued Disposition = "queued"
)

// PromptHooks are the two moments of a prompt that pi's RPC mode acts on. Each hook that is set is
// called exactly once, Decided first, both before any event of the run.
type PromptHooks struct {
	// Decided: the session has taken the prompt (its run is starting, or it was queued) or refused it.
	// A prompt or steering message sent after this point is ordered after this one.
	Decided func()
	// Preflight is pi's preflight result: what became of the prompt once it was queued or its run is
	// about to start (after any compaction the prompt needs first), handled by an extension command
	// or input handler, or the reason it was refused (then the call returns that error too).
	Preflight func(Disposition, error)
	// Source is where the prompt came from, for input handlers (empty: interactive).
	Source InputSource
}

// PromptWithHooks is Prompt reporting its preflight through hooks (RPC mode answers a prompt at that
// point while its run goes on). Like Prompt, it returns when the run, its retries and compactions
// have settled; Prompt is this with no hooks.
func (s *Session) PromptWithHooks(ctx context.Context, text string, images []provider.Content,
	behavior StreamingBehavior, hooks PromptHooks) error {
	decided := func() {
		if hooks.Decided != nil {
			hooks.Decided()
		}
	}
	report := func(d Disposition, err error) error {
		if hooks.Preflight != nil {
			hooks.Preflight(d, err)
		}
		return err
	}
	// The pipeline of input.go: an extension command runs now, even during a run; input handlers and
	// skill and template expansion come before the prompt is queued or sent.
	if s.runExtensionCommand(ctx, text) {
		decided()
		return report(DispositionHandled, nil)
	}
	source := hooks.Source
	if source == "" {
		source = SourceInteractive
	}
	text, images, handled := s.transformInput(ctx, text, images, source, behavior)
	if handled {
		decided()
		return report(DispositionHandled, nil)
	}
	s.Resources() // the system prompt lists the skills

	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		if behavior != BehaviorSteer && behavior != BehaviorFollowUp {
			s.mu.Unlock()
			decided()
			return report("", ErrBusy)
		}
		// Queued under s.mu: the operation's end (endRun) either sees the message or this check saw
		// the session idle, so a message typed as the run ends is never left waiting.
		s.queueLocked(text, images, behavior == BehaviorFollowUp)
		s.mu.Unlock()
		s.emitQueueUpdate()
		decided()
		return report(DispositionQueued, nil)
	}
	if err := s.checkModelLocked(); err != nil {
		s.mu.Unlock()
		decided()
		return report("", err)
	}
	opCtx, end := s.beginOperationLocked(ctx)
	s.mu.Unlock()
	started := false // a run began: its work ends with agent_settled
	defer func() { s.endRun(opCtx, end, started) }()
	decided()

	s.flushPendingBash()
	if _, err := s.checkCompaction(opCtx, s.lastAssistantMessage(), true); err != nil {
		return report("", err)
	}
	report(DispositionStarted, nil)
	started = true
	// The user message comes first so a prompt patch is never older than it (pi's order); the patch
	// goes first in the transcript.
	prompt := []provider.Message{provider.NewUserMessage(text, images...)}
	if s.opts.Sections != nil {
		s.opts.Sections.Prepare(opCtx)
	}
	prompt = append(prompt, s.takeNextTurn()...) // an extension's nextTurn messages go with it
	prompt = append(prompt, s.beforeAgentStart(opCtx, text, images)...)
	// After before_agent_start, as pi: the patch is of the prompt its handlers shaped.
	if patch := s.promptPatch(); patch != nil {
		prompt = append([]provider.Message{patch}, prompt...)
	}
	if err := s.agent.Prompt(opCtx, prompt...); err != nil {
		return err
	}
	return s.afterRun(opCtx)
}

// Continue re-runs the agent from the current transcript (pi's continue()), with the same retry and
// compaction handling as Prompt.
func (s *Session) Continue(ctx context.Context) error {
	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		s.mu.Unlock()
		return ErrBusy
	}
	if err := s.checkModelLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	opCtx, end := s.beginOperationLocked(ctx)
	s.mu.Unlock()
	started := true
	defer func() { s.endRun(opCtx, end, started) }()
	if err := s.agent.Continue(opCtx); err != nil {
		if errors.Is(err, loop.ErrContinueFromAssistant) || errors.Is(err, loop.ErrNoMessagesToContinue) ||
			errors.Is(err, loop.ErrAlreadyProcessing) {
			started = false // refused before a run began
		}
		return err
	}
	return s.afterRun(opCtx)
}

// beginOperationLocked marks the session busy with one operation (a run with its retries and
// compactions, or a manual compaction) and returns its context and the function that ends it. The
// caller holds s.mu and has checked that no operation runs. end(ran) says whether the operation began
// an agent run: then, as pi 1.6 does, its end is announced with agent_settled once the session is idle
// again (a listener may start the next prompt at once), aborted when the operation was cancelled.
func (s *Session) beginOperationLocked(ctx context.Context) (context.Context, func(ran bool)) {
	opCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.busy = true
	s.opCancel = cancel
	s.opDone = done
	return opCtx, func(ran bool) {
		aborted := opCtx.Err() != nil
		cancel()
		// The snapshot of what the run's tools left must precede anything the user does next.
		s.waitCheckpoints()
		s.mu.Lock()
		s.busy = false
		s.runSystemPrompt = ""
		s.runPrompt = nil
		s.opCancel = nil
		s.opDone = nil
		s.mu.Unlock()
		s.flushPendingBash()
		if ran {
			s.emit(Event{Type: EventAgentSettled, Aborted: aborted})
		}
		close(done)
	}
}

// endRun ends the operation of a run. A message queued after the run last looked at the queues (a
// steer typed just as the answer ended) is delivered with a new run, as pi delivers it before going
// idle; after an abort the queues stay as they are.
func (s *Session) endRun(ctx context.Context, end func(ran bool), ran bool) {
	aborted := ctx.Err() != nil
	end(ran)
	if !aborted && s.agent.HasQueuedMessages() {
		go s.deliverQueued()
	}
}

// checkModelLocked is the preflight of a prompt: a model must be selected and have credentials.
func (s *Session) checkModelLocked() error {
	m := s.agent.Model()
	if m == nil {
		return errors.New(NoModelSelectedMessage)
	}
	if !s.opts.HasAuth(m.Provider) {
		return fmt.Errorf("No API key found for %s.\n\n%s", m.Provider, apiKeyGuidance(m.Provider))
	}
	return nil
}

func apiKeyGuidance(providerName string) string {
	if env := provider.APIKeyEnvVar(providerName); env != "" {
		return "Set " + env + ", pass --api-key, or add the key to ~/.pi/agent/auth.json."
	}
	return "Set the provider's apiKey in ~/.pi/agent/models.json, pass --api-key, or add the key to ~/.pi/agent/auth.json."
}

// Abort cancels whatever runs: the model request, the tools, a retry wait, a compaction. It returns once
// the whole operation has ended (the work after a run included), so the caller may start another at
// once. Queued messages stay queued. It must not be called from an event listener, which runs inside
// the operation.
func (s *Session) Abort() {
	s.mu.Lock()
	cancels := []context.CancelFunc{s.opCancel, s.retryCancel, s.compactCancel}
	done := s.opDone
	s.mu.Unlock()
	for _, c := range cancels {
		if c != nil {
			c()
		}
	}
	s.agent.Abort()
	_ = s.agent.WaitForIdle(context.Background())
	if done != nil {
		<-done
	}
}

// WaitForIdle returns when no operation is running or ctx ends.
func (s *Session) WaitForIdle(ctx context.Context) error {
	return s.agent.WaitForIdle(ctx)
}

// afterRun handles what pi does on agent_end: automatic retry of transient errors (re-running with
// Continue after a back-off), then the compaction checks (threshold, or overflow recovery with a
// re-run), then messages queued after the loop's last poll (pi 1.6 drains them with a fresh run
// before settling, so a steer typed as the answer ends is delivered, not left waiting for the next
// prompt). It returns when the chain has settled.
func (s *Session) afterRun(ctx context.Context) error {
	for {
		s.mu.Lock()
		last := s.lastAssistant
		s.lastAssistant = nil
		s.mu.Unlock()
		if last != nil {
			retried, err := s.maybeRetry(ctx, last)
			if err != nil {
				return err
			}
			if retried {
				continue
			}
			again, err := s.checkCompaction(ctx, last, false)
			if err != nil {
				return err
			}
			if again {
				continue
			}
		}
		aborted := ctx.Err() != nil || (last != nil && last.StopReason == provider.StopReasonAborted)
		if aborted {
			return nil
		}
		if !s.agent.HasQueuedMessages() && !s.beforeSettle(ctx) {
			return nil
		}
		if err := s.agent.Continue(ctx); err != nil {
			if errors.Is(err, loop.ErrContinueFromAssistant) || errors.Is(err, loop.ErrNoMessagesToContinue) {
				return nil
			}
			return err
		}
	}
}

// LastAssistantText is the text of the last assistant message that has any (pi's
// getLastAssistantText); ok is false when there is none.
func (s *Session) LastAssistantText() (string, bool) {
	msgs := s.agent.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		a, isAssistant := msgs[i].(*provider.AssistantMessage)
		if !isAssistant {
			continue
		}
		if a.StopReason == provider.StopReasonAborted && len(a.Content) == 0 {
			continue
		}
		text := strings.TrimSpace(provider.TextOf(a.Content, ""))
		if text == "" {
			return "", false
		}
		return text, true
	}
	return "", false
}
