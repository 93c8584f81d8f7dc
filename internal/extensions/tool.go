package extensions

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// Tool is a tool an extension registered; it runs in the extension's process.
type Tool struct {
	spec ToolSpec
	proc *process
}

var _ loop.Tool = (*Tool)(nil)

// Definition is the tool as the model is told of it.
func (t *Tool) Definition() provider.ToolDefinition {
	params := t.spec.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return provider.ToolDefinition{Name: t.spec.Name, Description: t.spec.Description, Parameters: params}
}

// PromptLines are the tool's line and rules in the system prompt (its promptSnippet and
// promptGuidelines); an extension's tool that replaces a built-in one replaces its lines too.
func (t *Tool) PromptLines() (snippet string, guidelines []string) {
	return t.spec.PromptSnippet, t.spec.PromptGuidelines
}

// Spec is the registration as the extension sent it.
func (t *Tool) Spec() ToolSpec { return t.spec }

// ExecutionMode keeps a batch sequential when the extension asked for it.
func (t *Tool) ExecutionMode() loop.ExecutionMode {
	if t.spec.ExecutionMode == string(loop.ExecutionSequential) {
		return loop.ExecutionSequential
	}
	return loop.ExecutionParallel
}

// toolOutput is a tool's result or partial result on the wire.
type toolOutput struct {
	Content   []provider.Content `json:"content"`
	Details   json.RawMessage    `json:"details"`
	IsError   bool               `json:"isError"`
	Terminate bool               `json:"terminate"`
}

func (o toolOutput) result() loop.ToolResult {
	r := loop.ToolResult{Content: o.Content, IsError: o.IsError, Terminate: o.Terminate}
	if len(o.Details) > 0 && string(o.Details) != "null" {
		r.Details = o.Details
	}
	return r
}

// Execute runs the call in the extension; partial results stream to onUpdate, and the run's abort
// reaches the extension as cancel (its AbortSignal).
func (t *Tool) Execute(ctx context.Context, call loop.ToolCall, onUpdate func(loop.ToolResult)) (loop.ToolResult, error) {
	update := func(partial json.RawMessage) {
		var o toolOutput
		if json.Unmarshal(partial, &o) == nil {
			onUpdate(o.result())
		}
	}
	res, err := t.proc.call(ctx, hostMessage{Type: msgExecute, ToolCallID: call.ID, Name: call.Name, Args: call.Args}, 0, update)
	if err != nil {
		return loop.ToolResult{}, err
	}
	var o toolOutput
	if err := json.Unmarshal(res, &o); err != nil {
		return loop.ToolResult{}, fmt.Errorf("tool %s: bad result from %s: %w", call.Name, t.proc.path, err)
	}
	return o.result(), nil
}

// Tools lists the registered tools in load order (the first registration of a name wins). It waits
// for the start, bounded by ctx.
func (h *Host) Tools(ctx context.Context) []*Tool {
	var out []*Tool
	seen := map[string]bool{}
	for _, p := range h.live(ctx) {
		for _, spec := range p.registrations().Tools {
			if seen[spec.Name] {
				continue
			}
			seen[spec.Name] = true
			if spec.ExtensionPath == "" {
				spec.ExtensionPath = p.path
			}
			out = append(out, &Tool{spec: spec, proc: p})
		}
	}
	return out
}
