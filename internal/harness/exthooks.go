package harness

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// This file is where extension events act on a run, at the points of pi's AgentSession: tool_call
// after a call's arguments are validated (block, change the arguments, terminate), tool_result after
// the tool ran (change the result), context before every request (rewrite the conversation; the
// system messages are kept as they are, as pi 1.6 keeps the prompt), before_agent_start once a
// prompt is accepted (add messages after the user's, replace the system prompt for that run).
// Events that only observe (turn_end, agent_settled, session events) reach the host through the
// session's listeners.

// ExtensionHooks are the extension events whose answers act on the run. Options.Hooks nil: none.
type ExtensionHooks interface {
	ToolCall(ctx context.Context, toolName, toolCallID string, args json.RawMessage) ToolCallVerdict
	// ToolResult returns nil when no handler changed the result.
	ToolResult(ctx context.Context, r ToolResultInfo) *ToolResultChange
	// Context returns nil when no handler rewrote the messages.
	Context(ctx context.Context, msgs []provider.Message) []provider.Message
	// BeforeAgentStart returns the messages to add after the prompt and the system prompt for the
	// run ("" unchanged).
	BeforeAgentStart(ctx context.Context, prompt string, images []provider.Content, systemPrompt string) ([]provider.Message, string)
}

// ContextWithSystemHook is the optional part of ExtensionHooks for pi 1.6's context_with_system: after
// the context handlers, the whole request (system messages included) for handlers that own the
// prompt and tool declarations. It returns nil when no handler changed the messages; what it returns
// is sent as it is.
type ContextWithSystemHook interface {
	ContextWithSystem(ctx context.Context, msgs []provider.Message) []provider.Message
}

// ToolCallVerdict is what the tool_call handlers decided; Args nil keeps the arguments.
type ToolCallVerdict struct {
	Block     bool
	Reason    string
	Terminate bool
	Args      json.RawMessage
}

// ToolResultInfo is a finished call as tool_result handlers see it.
type ToolResultInfo struct {
	ToolName, ToolCallID string
	Args                 json.RawMessage
	Result               loop.ToolResult
	IsError              bool
}

// ToolResultChange replaces parts of a result (nil: unchanged).
type ToolResultChange struct {
	Content []provider.Content
	Details any
	IsError *bool
}

// installHooks wires the hooks into the loop's configuration.
func (s *Session) installHooks(cfg *loop.Config) {
	h := s.opts.Hooks
	if h == nil {
		return
	}
	if b, ok := h.(BoundaryHook); ok {
		s.installBoundaries(cfg, b)
	}
	cfg.BeforeToolCall = func(ctx context.Context, c loop.ToolCallContext) (loop.BeforeToolCallResult, error) {
		v := h.ToolCall(ctx, c.ToolCall.Name, c.ToolCall.ID, c.Args)
		return loop.BeforeToolCallResult{Block: v.Block, Reason: v.Reason, Terminate: v.Terminate, Args: v.Args}, nil
	}
	cfg.AfterToolCall = func(ctx context.Context, c loop.AfterToolCallContext) (loop.AfterToolCallResult, error) {
		ch := h.ToolResult(ctx, ToolResultInfo{ToolName: c.ToolCall.Name, ToolCallID: c.ToolCall.ID, Args: c.Args,
			Result: c.Result, IsError: c.IsError})
		if ch == nil {
			return loop.AfterToolCallResult{}, nil
		}
		return loop.AfterToolCallResult{Content: ch.Content, Details: ch.Details, IsError: ch.IsError}, nil
	}
	cfg.TransformContext = func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
		var system, conversation []provider.Message
		for _, m := range msgs {
			if m.Role() == provider.RoleSystem {
				system = append(system, m)
			} else {
				conversation = append(conversation, m)
			}
		}
		if rewritten := h.Context(ctx, conversation); rewritten != nil {
			msgs = append(slices.Clip(system), rewritten...)
		}
		if hs, ok := h.(ContextWithSystemHook); ok {
			if rewritten := hs.ContextWithSystem(ctx, msgs); rewritten != nil {
				msgs = rewritten
			}
		}
		return msgs, nil
	}
}

// beforeAgentStart runs before_agent_start for a prompt about to start: the messages to send after
// the prompt, and the run's system prompt override (kept until the operation ends).
func (s *Session) beforeAgentStart(ctx context.Context, text string, images []provider.Content) []provider.Message {
	h := s.opts.Hooks
	if h == nil {
		return nil
	}
	if msgs, ok := s.startRun(ctx, AgentStart{Prompt: text, Images: images}); ok {
		return msgs
	}
	msgs, prompt := h.BeforeAgentStart(ctx, text, images, s.SystemPrompt())
	s.mu.Lock()
	s.runSystemPrompt = prompt
	s.mu.Unlock()
	return msgs
}

// runPromptOverride is the system prompt before_agent_start set for the current run ("" none).
func (s *Session) runPromptOverride() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runSystemPrompt
}

// ErrCancelledByExtension is the error of a session change a session_before_* handler cancelled.
var ErrCancelledByExtension = errors.New("cancelled by an extension")

// SessionGuard is implemented by hooks that take part in session changes: BeforeSessionChange runs
// session_before_switch or session_before_fork and may cancel the change; SessionChanged announces
// the session that replaced the old one (session_start with reason new, resume or fork).
type SessionGuard interface {
	BeforeSessionChange(ctx context.Context, event string, fields map[string]any) (cancel bool)
	SessionChanged(reason, previousSessionFile string)
}

// guardSessionChange asks the extensions before a session change.
func (s *Session) guardSessionChange(event string, fields map[string]any) error {
	if g, ok := s.opts.Hooks.(SessionGuard); ok && g.BeforeSessionChange(context.Background(), event, fields) {
		return ErrCancelledByExtension
	}
	return nil
}

// sessionChanged announces the new session.
func (s *Session) sessionChanged(reason, previous string) {
	if g, ok := s.opts.Hooks.(SessionGuard); ok {
		g.SessionChanged(reason, previous)
	}
}
