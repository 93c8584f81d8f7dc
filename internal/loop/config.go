package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
)

// StreamFunc streams one assistant response (see provider.Provider for the contract: emit is called
// synchronously and in order on the caller's goroutine, failures are encoded in the returned message,
// which is never nil).
type StreamFunc func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage

// QueueMode says how many queued messages one poll of a queue takes.
type QueueMode string

const (
	// QueueOneAtATime takes the first queued message per poll (the default).
	QueueOneAtATime QueueMode = "one-at-a-time"
	// QueueAll takes every queued message at once.
	QueueAll QueueMode = "all"
)

// ParseQueueMode validates a mode name as pi spells it.
func ParseQueueMode(s string) (QueueMode, error) {
	switch QueueMode(s) {
	case QueueOneAtATime, QueueAll:
		return QueueMode(s), nil
	}
	return "", fmt.Errorf("invalid queue mode %q (valid: one-at-a-time, all)", s)
}

// ToolCallContext is what the tool-call hooks see: the assistant message that asked for the call, the
// call itself (raw arguments), the validated arguments and the transcript as it stood when the batch
// began.
type ToolCallContext struct {
	AssistantMessage *provider.AssistantMessage
	// ToolCall is the toolCall content block as the model sent it.
	ToolCall provider.Content
	// Args are the validated (type-coerced) arguments that Execute receives.
	Args     json.RawMessage
	Messages []provider.Message
}

// BeforeToolCallResult lets BeforeToolCall veto a call or change its arguments. A blocked call becomes
// an error result whose text is Reason (or "Tool execution was blocked"); Terminate on a blocked call
// asks the loop to stop after the batch, as a tool's own Terminate does. Args, when set, replace the
// validated arguments the tool runs with (pi's handlers mutate event.input in place).
type BeforeToolCallResult struct {
	Block     bool
	Reason    string
	Terminate bool
	Args      json.RawMessage
}

// AfterToolCallContext is ToolCallContext plus the result the tool produced.
type AfterToolCallContext struct {
	ToolCallContext
	Result  ToolResult
	IsError bool
}

// AfterToolCallResult replaces parts of a tool result, field by field; nil fields keep the tool's
// value (no deep merge). New content without new structured content drops the tool's structured
// content, which may no longer match it.
type AfterToolCallResult struct {
	Content           []provider.Content
	Details           any
	StructuredContent any
	IsError           *bool
	Terminate         *bool
}

// TurnContext is the turn that has just completed, as FinishTurn and PrepareNextTurn see it.
type TurnContext struct {
	Message     *provider.AssistantMessage
	ToolResults []*provider.ToolResultMessage
	// Messages is the transcript after the turn; NewMessages what this run added so far.
	Messages    []provider.Message
	NewMessages []provider.Message
}

// TurnDecision is FinishTurn's verdict on the run (pi's finishTurn result).
type TurnDecision int

const (
	// TurnDefault lets the loop decide: it goes on while there are tool results, steering or
	// follow-up messages to answer.
	TurnDefault TurnDecision = iota
	// TurnEnd ends the run right after this turn's turn_end; queued messages stay queued.
	TurnEnd
	// TurnContinue guarantees one more request. Tool results, steering or follow-ups satisfy it as
	// usual; without any, the loop makes one request from the transcript as it stands.
	TurnContinue
)

// NextTurn is what PrepareNextTurn adds to the next turn.
type NextTurn struct {
	// Messages go into the transcript before the next request, ahead of the steering or follow-up
	// messages the turn delivers, each with message_start and message_end.
	Messages []provider.Message
}

// RequestPlan is what one request is built from. PrepareRequest may change any field; the change
// holds for that request only, since the loop reads the Agent's state afresh for every request (a
// hook that wants a lasting change sets it on the Agent as well). As in pi 1.6 the prompt and the
// declared tools are in Messages (its system messages); Tools are the tools the answer's calls run
// against.
type RequestPlan struct {
	Model         *provider.Model
	ThinkingLevel provider.ThinkingLevel
	Tools         []Tool
	// Messages is the transcript; TransformContext and ConvertToLLM run on it afterwards.
	Messages []provider.Message
}

// Config is the fixed wiring of an Agent. Only Stream is required.
type Config struct {
	Stream StreamFunc
	// ConvertToLLM turns the transcript into the messages sent to the model; nil keeps system, user,
	// assistant and toolResult messages. The request's prompt and tools are the replay of the system
	// messages it keeps.
	ConvertToLLM func([]provider.Message) []provider.Message
	// TransformContext runs before ConvertToLLM on every request. An error ends the run through the
	// failure path (a synthetic error message: message_start, message_end, turn_end, agent_end).
	TransformContext func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error)
	// RequestAuth resolves the credentials of every request just before it is sent: pi's getApiKey,
	// with the headers that belong to the key (one call, so a key and its headers come from one
	// resolution). A non-empty key replaces StreamOptions.APIKey; the headers go under
	// StreamOptions.Headers, whose own entries win. An error ends the run through the failure path, as a
	// throwing getApiKey or stream function does in pi: the stream function cannot fail that way.
	RequestAuth func(ctx context.Context, m *provider.Model) (key string, headers map[string]string, err error)
	// StreamOptions are the base options of every request; Reasoning comes from the thinking level and
	// SessionID from SetSessionID when set.
	StreamOptions provider.StreamOptions
	// ToolExecution is parallel (default) or sequential.
	ToolExecution ExecutionMode
	// BeforeToolCall runs after validation, on the loop goroutine. An error becomes the call's error
	// result.
	BeforeToolCall func(ctx context.Context, c ToolCallContext) (BeforeToolCallResult, error)
	// AfterToolCall runs after the tool finished, on the loop goroutine, before tool_execution_end. An
	// error replaces the result with an error result.
	AfterToolCall func(ctx context.Context, c AfterToolCallContext) (AfterToolCallResult, error)
	// FinishTurn runs when a turn is complete, before its turn_end, also for a turn that ended in an
	// error or abort (whose run ends regardless of the decision). An error ends the run through the
	// failure path.
	FinishTurn func(ctx context.Context, t TurnContext) (TurnDecision, error)
	// PrepareNextTurn runs before every turn but the first: after the previous turn's turn_end and
	// steering poll, before this turn's turn_start. It may take long (the coding agent compacts the
	// history here), and may change the Agent's state (model, tools, thinking level, messages), which
	// the loop reads afresh for every request; a prompt change is a system message among the
	// returned messages. It is not called when the run ends
	// instead. An error ends the run through the failure path.
	PrepareNextTurn func(ctx context.Context, t TurnContext) (NextTurn, error)
	// PrepareRequest runs before every request, the first included, after the turn's messages were
	// delivered. An error ends the run through the failure path.
	PrepareRequest func(ctx context.Context, plan *RequestPlan) error
	// SteeringMode and FollowUpMode are the initial queue modes (default one-at-a-time).
	SteeringMode, FollowUpMode QueueMode
}
