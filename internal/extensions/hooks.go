package extensions

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
)

// This file is the events whose answers act on the session, each chained across the processes as
// pi's runner chains them across extensions (the sidecar chains its own extensions inside).

// ToolCallOutcome is what the tool_call handlers decided.
type ToolCallOutcome struct {
	Block     bool
	Reason    string
	Terminate bool
	// Input is the arguments as the handlers left them (nil: unchanged).
	Input json.RawMessage
}

type toolCallEvent struct {
	Type       string          `json:"type"`
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
}

type toolCallAnswer struct {
	Block     bool            `json:"block"`
	Reason    string          `json:"reason"`
	Terminate bool            `json:"terminate"`
	Input     json.RawMessage `json:"input"`
}

// ToolCall runs the tool_call handlers. A handler that fails blocks the call (pi: "Extension failed,
// blocking execution"), so a crashed permission gate never lets a call through.
func (h *Host) ToolCall(ctx context.Context, toolName, toolCallID string, input json.RawMessage) ToolCallOutcome {
	var out ToolCallOutcome
	ev := toolCallEvent{Type: "tool_call", ToolName: toolName, ToolCallID: toolCallID, Input: input}
	h.emit(ctx, "tool_call", func() any { return ev }, func(res json.RawMessage, err error) bool {
		if err != nil {
			out = ToolCallOutcome{Block: true, Reason: "Extension failed, blocking execution: " + err.Error()}
			return true
		}
		var a toolCallAnswer
		if json.Unmarshal(res, &a) != nil {
			return false
		}
		if len(a.Input) > 0 && string(a.Input) != "null" {
			ev.Input = a.Input
			out.Input = a.Input
		}
		if a.Block {
			out.Block, out.Reason, out.Terminate = true, a.Reason, a.Terminate
			return true
		}
		return false
	})
	return out
}

// ToolResultEvent is a finished tool call as tool_result handlers see it.
type ToolResultEvent struct {
	Type              string             `json:"type"`
	ToolName          string             `json:"toolName"`
	ToolCallID        string             `json:"toolCallId"`
	Input             json.RawMessage    `json:"input"`
	Content           []provider.Content `json:"content"`
	Details           any                `json:"details,omitempty"`
	StructuredContent any                `json:"structuredContent,omitempty"`
	IsError           bool               `json:"isError"`
}

// ToolResultChange is what the handlers replaced (nil fields: unchanged).
type ToolResultChange struct {
	Content []provider.Content `json:"content"`
	Details json.RawMessage    `json:"details"`
	IsError *bool              `json:"isError"`
}

// ToolResult runs the tool_result handlers; nil when none changed anything.
func (h *Host) ToolResult(ctx context.Context, ev ToolResultEvent) *ToolResultChange {
	ev.Type = "tool_result"
	var out *ToolResultChange
	h.emit(ctx, "tool_result", func() any { return ev }, func(res json.RawMessage, err error) bool {
		var c ToolResultChange
		if err != nil || json.Unmarshal(res, &c) != nil || string(res) == "null" {
			return false
		}
		if out == nil {
			out = &ToolResultChange{}
		}
		if c.Content != nil {
			ev.Content, out.Content = c.Content, c.Content
		}
		if len(c.Details) > 0 {
			ev.Details, out.Details = c.Details, c.Details
		}
		if c.IsError != nil {
			ev.IsError, out.IsError = *c.IsError, c.IsError
		}
		return false
	})
	return out
}

type messagesAnswer struct {
	Messages json.RawMessage `json:"messages"`
}

// Context runs the context handlers on the messages of a request and returns the messages they
// produced (nil: unchanged). The messages travel as pi writes them.
func (h *Host) Context(ctx context.Context, messages json.RawMessage) json.RawMessage {
	return h.rewriteMessages(ctx, "context", messages)
}

// ContextWithSystem runs the context_with_system handlers on a request's whole transcript (system
// messages included) and returns what they produced (nil: unchanged).
func (h *Host) ContextWithSystem(ctx context.Context, messages json.RawMessage) json.RawMessage {
	return h.rewriteMessages(ctx, "context_with_system", messages)
}

// rewriteMessages raises event with the messages, each handler seeing the previous one's answer, and
// returns the last messages a handler produced (nil: unchanged).
func (h *Host) rewriteMessages(ctx context.Context, event string, messages json.RawMessage) json.RawMessage {
	var out json.RawMessage
	cur := messages
	h.emit(ctx, event, func() any {
		return map[string]any{"type": event, "messages": cur}
	}, func(res json.RawMessage, err error) bool {
		var a messagesAnswer
		if err != nil || json.Unmarshal(res, &a) != nil || len(a.Messages) == 0 || string(a.Messages) == "null" {
			return false
		}
		cur, out = a.Messages, a.Messages
		return false
	})
	return out
}

// BeforeAgentStart is what before_agent_start handlers added: custom messages for the transcript, a
// replacement system prompt ("" unchanged) and the prompt's structure as they edited it (pi 1.6's
// systemPromptOptions; nil unchanged).
type BeforeAgentStart struct {
	Messages     []json.RawMessage
	SystemPrompt string
	Options      json.RawMessage
}

type beforeAgentStartAnswer struct {
	Messages     []json.RawMessage `json:"messages"`
	Message      json.RawMessage   `json:"message"`
	SystemPrompt string            `json:"systemPrompt"`
	Options      json.RawMessage   `json:"systemPromptOptions"`
}

// StartTrigger is what starts a run: a user prompt (Prompt, Images) or a custom message (Message,
// as pi writes it).
type StartTrigger struct {
	Prompt  string
	Images  []provider.Content
	Message json.RawMessage
}

// BeforeAgentStartWith runs the before_agent_start handlers with the prompt's structure (pi 1.6's
// systemPromptOptions, options) besides its text; each process sees what the ones before it changed.
func (h *Host) BeforeAgentStartWith(ctx context.Context, t StartTrigger, systemPrompt string, options json.RawMessage) BeforeAgentStart {
	ev := map[string]any{"type": "before_agent_start", "messageType": "user", "prompt": t.Prompt}
	if t.Message != nil {
		ev = map[string]any{"type": "before_agent_start", "messageType": "custom", "message": t.Message}
	} else if len(t.Images) > 0 {
		ev["images"] = t.Images
	}
	if options != nil {
		ev["systemPromptOptions"] = options
	}
	return h.beforeAgentStart(ctx, ev, systemPrompt)
}

// BeforeAgentStart runs the before_agent_start handlers for a user prompt.
func (h *Host) BeforeAgentStart(ctx context.Context, prompt string, images []provider.Content, systemPrompt string) BeforeAgentStart {
	ev := map[string]any{"type": "before_agent_start", "messageType": "user", "prompt": prompt}
	if len(images) > 0 {
		ev["images"] = images
	}
	return h.beforeAgentStart(ctx, ev, systemPrompt)
}

// BeforeAgentStartMessage runs the before_agent_start handlers for a run a custom message starts
// (pi's messageType "custom": sendMessage with triggerTurn while idle). The message travels as pi
// writes it.
func (h *Host) BeforeAgentStartMessage(ctx context.Context, message json.RawMessage, systemPrompt string) BeforeAgentStart {
	return h.beforeAgentStart(ctx, map[string]any{"type": "before_agent_start", "messageType": "custom", "message": message}, systemPrompt)
}

func (h *Host) beforeAgentStart(ctx context.Context, ev map[string]any, systemPrompt string) BeforeAgentStart {
	var out BeforeAgentStart
	cur := systemPrompt
	h.emit(ctx, "before_agent_start", func() any {
		ev["systemPrompt"] = cur
		return ev
	}, func(res json.RawMessage, err error) bool {
		var a beforeAgentStartAnswer
		if err != nil || json.Unmarshal(res, &a) != nil {
			return false
		}
		out.Messages = append(out.Messages, a.Messages...)
		if len(a.Message) > 0 && string(a.Message) != "null" {
			out.Messages = append(out.Messages, a.Message)
		}
		if a.SystemPrompt != "" {
			cur, out.SystemPrompt = a.SystemPrompt, a.SystemPrompt
		}
		if len(a.Options) > 0 && string(a.Options) != "null" {
			ev["systemPromptOptions"], out.Options = a.Options, a.Options
		}
		return false
	})
	return out
}

// InputOutcome is what the input handlers did: Action "continue", "transform" (Text and Images
// replace the input) or "handled".
type InputOutcome struct {
	Action string             `json:"action"`
	Text   string             `json:"text"`
	Images []provider.Content `json:"images"`
}

// Input runs the input handlers: transforms chain, "handled" stops.
func (h *Host) Input(ctx context.Context, text string, images []provider.Content, source, streamingBehavior string) InputOutcome {
	out := InputOutcome{Action: "continue"}
	cur := InputOutcome{Text: text, Images: images}
	h.emit(ctx, "input", func() any {
		ev := map[string]any{"type": "input", "text": cur.Text, "source": source}
		if cur.Images != nil {
			ev["images"] = cur.Images
		}
		if streamingBehavior != "" {
			ev["streamingBehavior"] = streamingBehavior
		}
		return ev
	}, func(res json.RawMessage, err error) bool {
		var a InputOutcome
		if err != nil || json.Unmarshal(res, &a) != nil {
			return false
		}
		switch a.Action {
		case "handled":
			out = a
			return true
		case "transform":
			cur.Text = a.Text
			if a.Images != nil {
				cur.Images = a.Images
			}
			out = InputOutcome{Action: "transform", Text: cur.Text, Images: cur.Images}
		}
		return false
	})
	return out
}

// Commands lists the registered commands in load order (the first registration of a name wins).
func (h *Host) Commands() []CommandSpec {
	if !h.Started() {
		return nil
	}
	var out []CommandSpec
	seen := map[string]bool{}
	for _, p := range h.live(context.Background()) {
		for _, c := range p.registrations().Commands {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// RunCommand runs the command registered as name. found is false when none is.
func (h *Host) RunCommand(ctx context.Context, name, args string) (found bool, err error) {
	for _, p := range h.live(ctx) {
		for _, c := range p.registrations().Commands {
			if c.Name != name {
				continue
			}
			// A command may wait for the user and run the agent: no deadline but the caller's.
			_, err := p.call(ctx, hostMessage{Type: msgCommand, Name: name, CommandArgs: &args}, 0, nil)
			if err != nil {
				h.cfg.OnError(ExtensionError{ExtensionPath: c.ExtensionPath, Event: "command:" + name, Error: err.Error()})
				return true, fmt.Errorf("/%s: %w", name, err)
			}
			return true, nil
		}
	}
	return false, nil
}

// Flags lists the flags extensions registered.
func (h *Host) Flags(ctx context.Context) []FlagSpec {
	var out []FlagSpec
	for _, p := range h.live(ctx) {
		out = append(out, p.registrations().Flags...)
	}
	return out
}
