package loop

import (
	"context"
	"encoding/json"

	"github.com/pi-go/pi-go/internal/provider"
)

// Tool is one capability the model can call. Implementations live in internal/tools; the loop knows
// only this interface.
type Tool interface {
	// Definition is what the model is told: name, description and the JSON schema of the arguments.
	Definition() provider.ToolDefinition
	// Execute runs the call. The arguments have been validated against the schema. onUpdate may be
	// called any number of times with the accumulated partial result (tool_execution_update); it must
	// not be called after Execute returns (such calls are ignored). onUpdate may be called from any
	// goroutine; it returns once the loop has taken the update, and the value passed must not be
	// modified afterwards (events are immutable). A returned error becomes an isError result whose text
	// is the error message; so does a panic; a result may also say IsError itself. ctx is cancelled
	// when the run is aborted.
	Execute(ctx context.Context, call ToolCall, onUpdate func(ToolResult)) (ToolResult, error)
}

// ToolCall is one validated call of a tool.
type ToolCall struct {
	ID   string
	Name string
	// Args is the validated (and type-coerced) arguments object.
	Args json.RawMessage
}

// ToolResult is what a tool returns: content for the model, details for UIs.
type ToolResult struct {
	Content []provider.Content
	// Details is tool-specific and never sent to the model; nil means absent.
	Details any
	// StructuredContent is the result as data, for programmatic callers (pi 1.6: bash's output and exit
	// code, read's text); it is not sent to the model nor stored in the session. nil means absent.
	StructuredContent any
	// IsError reports a failed call whose result is still the tool's own (bash's non-zero exit): the
	// result goes to the model as an error, as a returned error's message would.
	IsError bool
	// Terminate asks the loop not to call the model again after this batch (only when every result of
	// the batch asks for it). Runtime-only: never stored.
	Terminate bool
}

// MarshalJSON writes {content, details?, structuredContent?, isError?} as pi 1.6 does in
// tool_execution_update/end (isError only when the tool set it).
func (r ToolResult) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, `{"content":`...)
	content := r.Content
	if content == nil {
		content = []provider.Content{}
	}
	data, err := provider.MarshalJS(content)
	if err != nil {
		return nil, err
	}
	b = append(b, data...)
	if r.Details != nil {
		data, err := provider.MarshalJS(r.Details)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"details":`...)
		b = append(b, data...)
	}
	if r.StructuredContent != nil {
		data, err := provider.MarshalJS(r.StructuredContent)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"structuredContent":`...)
		b = append(b, data...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// ExecutionMode says whether a tool may run alongside others in one batch.
type ExecutionMode string

const (
	ExecutionParallel   ExecutionMode = "parallel"
	ExecutionSequential ExecutionMode = "sequential"
)

// SequentialTool is implemented by tools that must not run in parallel with other calls: a batch that
// contains a call of such a tool runs sequentially.
type SequentialTool interface {
	ExecutionMode() ExecutionMode
}

// ArgumentPreparer is implemented by tools that accept legacy argument shapes: PrepareArguments runs on
// the raw arguments before validation and returns the arguments to validate.
type ArgumentPreparer interface {
	PrepareArguments(raw json.RawMessage) json.RawMessage
}
