package provider

import (
	"context"
	"encoding/json"
	"time"
)

// ToolDefinition is what the model is told about a tool. It is also the tool declaration system
// messages persist (pi's toToolDeclaration).
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// ConstrainedSampling is pi's per-tool constrained-sampling preference ({"type":"json_schema",
	// "strict":"prefer"}), raw; nil when the tool has none.
	ConstrainedSampling json.RawMessage `json:"constrainedSampling,omitempty"`
}

// Request is one LLM call: the model, the system prompt, the transcript already converted to LLM roles
// (user, assistant, toolResult), the tools and the options. The system prompt and the tools are what
// the transcript's system messages replay to (see CurrentSystemMessage); Messages holds no system
// message.
type Request struct {
	Model        *Model
	SystemPrompt string
	Messages     []Message
	Tools        []ToolDefinition
	Options      StreamOptions
}

// StreamOptions are the per-call knobs of a stream.
type StreamOptions struct {
	// APIKey authenticates the call; empty sends no Authorization header.
	APIKey string
	// Reasoning is the thinking level; "" or ThinkingOff requests no reasoning.
	Reasoning ThinkingLevel
	// MaxTokens overrides the model's output limit when > 0.
	MaxTokens   int
	Temperature *float64
	// SessionID identifies the conversation to servers that cache by it.
	SessionID string
	// Headers are added to the model's own headers.
	Headers map[string]string
	// IdleTimeout ends a stream that sends no bytes for this long with a retryable error (0: the
	// provider's default; negative: none).
	IdleTimeout time.Duration
	// ContentTimeout ends a stream that sends no content (text, thinking, tool calls) for this long,
	// whatever else arrives (keep-alives, empty chunks), with a retryable error (0: the provider's
	// default; negative: none).
	ContentTimeout time.Duration
	// MaxRetryDelay is the longest wait before a retry that the caller will accept (the harness passes
	// retry.maxAgentDelayMs): an error whose server asks for a longer one says so and is not retryable
	// (0: no limit).
	MaxRetryDelay time.Duration
}

// Provider streams one assistant response. Stream never returns a Go error: failures (HTTP errors,
// dropped connections, cancellation) end the stream with a final message whose StopReason is error or
// aborted and whose ErrorMessage says what happened. emit is called synchronously, in order, from the
// caller's goroutine; the returned message is the final one (the same as the done/error event's).
type Provider interface {
	Stream(ctx context.Context, req *Request, emit func(*AssistantEvent)) *AssistantMessage
}

// StreamFunc adapts a function to Provider.
type StreamFunc func(ctx context.Context, req *Request, emit func(*AssistantEvent)) *AssistantMessage

// Stream calls f.
func (f StreamFunc) Stream(ctx context.Context, req *Request, emit func(*AssistantEvent)) *AssistantMessage {
	return f(ctx, req, emit)
}
