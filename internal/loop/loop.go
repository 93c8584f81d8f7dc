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

// runPrompt starts a run with prompt messages (pi's runAgentLoop).
func (r *run) runPrompt(prompts []provider.Message) error {
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

// loop is the two-layer loop of DESIGN.md §3: the inner loop runs turns while the model calls tools or
// steering messages are pending; the outer loop picks up follow-ups when the inner loop would stop.
func (r *run) loop() error {
	cfg := &r.a.cfg
	firstTurn := true
	// Messages steered while idle (or while the run was starting) go right after the prompt.
	pending := r.pollSteering()
	for {
		hasMoreToolCalls := true
		for hasMoreToolCalls || len(pending) > 0 {
			if firstTurn {
				firstTurn = false
			} else {
				r.emit(&Event{Type: EventTurnStart})
			}
			for _, m := range pending {
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
				r.emit(&Event{Type: EventTurnEnd, Message: msg, ToolResults: []*provider.ToolResultMessage{}})
				r.end()
				return nil
			}

			// The content is the ground truth: a "stop" or "length" message with tool calls runs them.
			results := []*provider.ToolResultMessage{}
			hasMoreToolCalls = false
			if calls := msg.ToolCalls(); len(calls) > 0 {
				var terminate bool
				results, terminate = r.executeToolCalls(msg, calls, tools)
				hasMoreToolCalls = !terminate
				for _, res := range results {
					r.newMessages = append(r.newMessages, res)
				}
			}
			r.emit(&Event{Type: EventTurnEnd, Message: msg, ToolResults: results})

			if cfg.PrepareNextTurn != nil {
				cfg.PrepareNextTurn(r.ctx)
			}
			if cfg.ShouldStopAfterTurn != nil && cfg.ShouldStopAfterTurn(TurnContext{
				Message:     msg,
				ToolResults: results,
				Messages:    r.a.Messages(),
				NewMessages: slices.Clone(r.newMessages),
			}) {
				r.end()
				return nil
			}
			// Steering is polled only here, after the whole batch: it never cuts tool calls short.
			pending = r.pollSteering()
		}
		followUps := r.pollFollowUp()
		if len(followUps) == 0 {
			break
		}
		pending = followUps
	}
	r.end()
	return nil
}

// streamAssistant makes one LLM request from the Agent's current state and streams the response into
// message_start / message_update* / message_end. It returns the final message and the tools the request
// offered (the ones its tool calls run against). An error is a failure outside the stream contract.
func (r *run) streamAssistant() (*provider.AssistantMessage, []Tool, error) {
	cfg := &r.a.cfg
	st := r.a.requestState()

	msgs := st.messages
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
	if st.thinking != provider.ThinkingOff {
		opts.Reasoning = st.thinking
	}
	if cfg.RequestAuth != nil {
		key, headers, err := cfg.RequestAuth(r.ctx, st.model)
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

	req := &provider.Request{Model: st.model, SystemPrompt: st.systemPrompt, Messages: llm, Options: opts}
	if len(st.tools) > 0 {
		req.Tools = make([]provider.ToolDefinition, len(st.tools))
		for i, t := range st.tools {
			req.Tools[i] = t.Definition()
		}
	}

	s := streamState{r: r}
	final := cfg.Stream(r.ctx, req, s.handle)
	if final == nil {
		return nil, nil, errors.New("stream function returned no message")
	}
	if !s.started {
		r.emit(&Event{Type: EventMessageStart, Message: final})
	}
	r.emit(&Event{Type: EventMessageEnd, Message: final})
	return final, st.tools, nil
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
		case provider.RoleUser, provider.RoleAssistant, provider.RoleToolResult:
			out = append(out, m)
		}
	}
	return out
}
