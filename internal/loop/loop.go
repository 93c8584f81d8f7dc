package loop

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
)

// run is one agent run: agent_start … agent_end. It lives on the goroutine that called Prompt or
// Continue; every event, hook and state change of the run happens there, except Tool.Execute.
type run struct {
	a   *Agent
	ctx context.Context
	// newMessages is every message this run added (agent_end's payload).
	newMessages []provider.Message
	// skipInitialSteering suppresses the first steering poll (continue() from an assistant tail).
	skipInitialSteering bool
}

func (r *run) emit(ev *Event) { r.a.emit(ev) }

func (r *run) emitMessage(m provider.Message) {
	r.emit(&Event{Type: EventMessageStart, Message: m})
	r.emit(&Event{Type: EventMessageEnd, Message: m})
}

// runPrompt starts a run with prompt messages (pi's runAgentLoop), preceded by a system message when
// the tools changed since the transcript declared them.
func (r *run) runPrompt(prompts []provider.Message) error {
	prompts = r.declareToolChanges(prompts)
	r.newMessages = append(r.newMessages, prompts...)
	r.emit(&Event{Type: EventAgentStart})
	r.emit(&Event{Type: EventTurnStart})
	for _, m := range prompts {
		r.emitMessage(m)
	}
	return r.loop()
}

// runContinue starts a run from the transcript as it is (pi's runAgentLoopContinue).
func (r *run) runContinue() error {
	r.emit(&Event{Type: EventAgentStart})
	r.emit(&Event{Type: EventTurnStart})
	return r.loop()
}

func (r *run) pollSteering() []provider.Message {
	if r.skipInitialSteering {
		r.skipInitialSteering = false
		return nil
	}
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	return r.a.steering.drain()
}

func (r *run) pollFollowUp() []provider.Message {
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	return r.a.followUp.drain()
}

func (r *run) end() {
	r.emit(&Event{Type: EventAgentEnd, Messages: slices.Clone(r.newMessages)})
}

// loop is the two-layer loop of DESIGN.md §3 as pi-agent-core 1.6 runs it: the inner loop runs turns
// while the model calls tools or steering messages are pending; the outer loop picks up follow-ups
// when the inner loop would stop. FinishTurn decides before each turn_end whether the run ends, goes on
// as usual or makes one more request; PrepareNextTurn readies every turn after the first.
func (r *run) loop() error {
	cfg := &r.a.cfg
	var last *TurnContext // the turn completed last; nil before the first
	// explicitContinue: FinishTurn asked for one more request, and nothing has brought one yet.
	explicitContinue := false
	// Messages steered while idle (or while the run was starting) go right after the prompt.
	pending := r.pollSteering()
	for {
		hasMoreToolCalls := true
		for hasMoreToolCalls || len(pending) > 0 {
			var prepared []provider.Message
			if last != nil {
				if cfg.PrepareNextTurn != nil {
					next, err := cfg.PrepareNextTurn(r.ctx, *last)
					if err != nil {
						return err
					}
					prepared = next.Messages
				}
				// Preparation may take long (a compaction): steering sent meanwhile joins this turn,
				// but only if the poll after turn_end found nothing, so that one-at-a-time mode never
				// delivers two messages in one turn.
				if len(pending) == 0 {
					pending = r.pollSteering()
				}
				r.emit(&Event{Type: EventTurnStart})
			}
			// Every request declares the tools that run now, whether or not messages are pending.
			for _, m := range r.declareToolChanges(slices.Concat(prepared, pending)) {
				r.emitMessage(m)
				r.newMessages = append(r.newMessages, m)
			}
			pending = nil

			msg, tools, err := r.streamAssistant()
			if err != nil {
				return err
			}
			r.newMessages = append(r.newMessages, msg)
			if msg.StopReason == provider.StopReasonError || msg.StopReason == provider.StopReasonAborted {
				// The run ends whatever FinishTurn decides; it still sees the turn.
				if _, err := r.finishTurn(msg, nil); err != nil {
					return err
				}
				r.emit(&Event{Type: EventTurnEnd, Message: msg, ToolResults: []*provider.ToolResultMessage{}})
				r.end()
				return nil
			}

			// The content is the ground truth: a message with tool calls gets their results whatever
			// its stop reason says.
			results := []*provider.ToolResultMessage{}
			hasMoreToolCalls = false
			if calls := msg.ToolCalls(); len(calls) > 0 {
				terminate := false
				if msg.StopReason == provider.StopReasonLength {
					// Cut off by the output limit: any call's arguments may be truncated, so none runs.
					results = r.failTruncatedToolCalls(calls)
				} else {
					results, terminate = r.executeToolCalls(msg, calls, tools)
				}
				hasMoreToolCalls = !terminate
				for _, res := range results {
					r.newMessages = append(r.newMessages, res)
				}
			}
			turn, err := r.finishTurn(msg, results)
			if err != nil {
				return err
			}
			last = &turn.ctx
			r.emit(&Event{Type: EventTurnEnd, Message: msg, ToolResults: results})
			if turn.decision == TurnEnd {
				r.end()
				return nil
			}
			// Steering is polled only here, after the whole batch: it never cuts tool calls short.
			pending = r.pollSteering()
			explicitContinue = turn.decision == TurnContinue && !hasMoreToolCalls && len(pending) == 0
		}
		if followUps := r.pollFollowUp(); len(followUps) > 0 {
			explicitContinue = false
			pending = followUps
			continue
		}
		if explicitContinue {
			// Nothing else brought the request FinishTurn asked for: one from the transcript as it is.
			explicitContinue = false
			continue
		}
		break
	}
	r.end()
	return nil
}

// finishedTurn is a completed turn and FinishTurn's decision on it.
type finishedTurn struct {
	ctx      TurnContext
	decision TurnDecision
}

// finishTurn builds the turn's context and asks FinishTurn about it.
func (r *run) finishTurn(msg *provider.AssistantMessage, results []*provider.ToolResultMessage) (finishedTurn, error) {
	cfg := &r.a.cfg
	t := finishedTurn{ctx: TurnContext{Message: msg, ToolResults: results}}
	if cfg.FinishTurn == nil && cfg.PrepareNextTurn == nil {
		return t, nil
	}
	t.ctx.Messages = r.a.Messages()
	t.ctx.NewMessages = slices.Clone(r.newMessages)
	if cfg.FinishTurn != nil {
		var err error
		if t.decision, err = cfg.FinishTurn(r.ctx, t.ctx); err != nil {
			return t, err
		}
	}
	return t, nil
}

// streamAssistant makes one LLM request from the Agent's current state and streams the response into
// message_start / message_update* / message_end. It returns the final message and the tools its calls
// run against (those the request declared, see declareToolChanges). An error is a failure outside the
// stream contract.
func (r *run) streamAssistant() (*provider.AssistantMessage, []Tool, error) {
	cfg := &r.a.cfg
	st := r.a.requestState()
	plan := RequestPlan{Model: st.model, ThinkingLevel: st.thinking, Tools: st.tools, Messages: st.messages}
	if cfg.PrepareRequest != nil {
		if err := cfg.PrepareRequest(r.ctx, &plan); err != nil {
			return nil, nil, err
		}
		if plan.Model == nil {
			plan.Model = st.model
		}
	}

	msgs := plan.Messages
	if cfg.TransformContext != nil {
		var err error
		if msgs, err = cfg.TransformContext(r.ctx, msgs); err != nil {
			return nil, nil, err
		}
	}
	var llm []provider.Message
	if cfg.ConvertToLLM != nil {
		llm = cfg.ConvertToLLM(msgs)
	} else {
		llm = defaultConvertToLLM(msgs)
	}

	opts := cfg.StreamOptions
	opts.SessionID = st.sessionID
	opts.Reasoning = ""
	if plan.ThinkingLevel != provider.ThinkingOff && plan.ThinkingLevel != "" {
		opts.Reasoning = plan.ThinkingLevel
	}
	if cfg.RequestAuth != nil {
		key, headers, err := cfg.RequestAuth(r.ctx, plan.Model)
		if err != nil {
			return nil, nil, err
		}
		if key != "" {
			opts.APIKey = key
		}
		if len(headers) > 0 {
			merged := maps.Clone(headers) // a new map: the options' map is shared by every request
			maps.Copy(merged, opts.Headers)
			opts.Headers = merged
		}
	}
	if cfg.Stream == nil {
		return nil, nil, errors.New("agent has no stream function")
	}

	// The prompt and the tools are the replay of the system messages the request keeps, which the
	// provider gets at the head of the request (no API here takes system messages mid-conversation).
	// The calls run against the plan's tools, the ones declareToolChanges declared unless
	// PrepareRequest changed them for this request.
	prompt, declared, rest := provider.CollapseSystemMessages(llm)
	req := &provider.Request{Model: plan.Model, SystemPrompt: prompt, Messages: rest, Tools: declared, Options: opts}

	s := streamState{r: r}
	final := cfg.Stream(r.ctx, req, s.handle)
	if final == nil {
		return nil, nil, errors.New("stream function returned no message")
	}
	// pi 1.6 records the requested level on every answer, whichever stream function gave it; a
	// virtual model's router records the level of the physical model it chose.
	if final.ThinkingLevel == "" || !provider.IsVirtual(req.Model) {
		final.ThinkingLevel = provider.ThinkingOff
		if opts.Reasoning != "" {
			final.ThinkingLevel = opts.Reasoning
		}
	}
	if !s.started {
		r.emit(&Event{Type: EventMessageStart, Message: final})
	}
	r.emit(&Event{Type: EventMessageEnd, Message: final})
	return final, plan.Tools, nil
}

// streamState turns provider events into message events for one request.
type streamState struct {
	r        *run
	started  bool
	finished bool
}

func (s *streamState) handle(ev *provider.AssistantEvent) {
	if ev == nil || s.finished {
		return
	}
	switch ev.Type {
	case provider.EventStart:
		if s.started || ev.Partial == nil {
			return
		}
		s.started = true
		s.r.emit(&Event{Type: EventMessageStart, Message: ev.Partial, AssistantEvent: ev})
	case provider.EventDone, provider.EventError:
		// The final message is what the stream function returns; message_end is emitted then.
		s.finished = true
	default:
		// Block events before start are dropped, as pi does.
		if !s.started || ev.Partial == nil {
			return
		}
		e := Event{Type: EventMessageUpdate, Message: ev.Partial, AssistantEvent: ev}
		s.r.emit(&e)
	}
}

// defaultConvertToLLM keeps the roles a provider understands.
func defaultConvertToLLM(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role() {
		case provider.RoleSystem, provider.RoleUser, provider.RoleAssistant, provider.RoleToolResult:
			out = append(out, m)
		}
	}
	return out
}
