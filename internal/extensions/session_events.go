package extensions

import (
	"context"
	"encoding/json"
)

// UserBashResult is a `!` command's outcome an extension supplied (pi's BashResult).
type UserBashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// UserBash runs the user_bash handlers for a `!` command, in load order; the first that answers with
// a result wins. onOutput receives the output an extension streams while it runs the command (the
// sidecar does for a handler's `operations`). A failing handler is an error: the command must not run.
// There is no deadline but ctx's: the command may run as long as the user lets it.
func (h *Host) UserBash(ctx context.Context, command string, excludeFromContext bool, cwd string, onOutput func(string)) (*UserBashResult, error) {
	body, err := json.Marshal(map[string]any{"type": "user_bash", "command": command, "excludeFromContext": excludeFromContext, "cwd": cwd})
	if err != nil {
		return nil, err
	}
	update := func(partial json.RawMessage) {
		var p struct {
			Output string `json:"output"`
		}
		if onOutput != nil && json.Unmarshal(partial, &p) == nil && p.Output != "" {
			onOutput(p.Output)
		}
	}
	for _, p := range h.subscribed(ctx, "user_bash") {
		res, err := p.call(ctx, hostMessage{Type: msgEvent, Event: body}, 0, update)
		if err != nil {
			if ctx.Err() == nil {
				h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: "user_bash", Error: err.Error()})
			}
			return nil, err
		}
		var a struct {
			Result *UserBashResult `json:"result"`
		}
		if json.Unmarshal(res, &a) == nil && a.Result != nil {
			return a.Result, nil
		}
	}
	return nil, nil
}

// BoundaryResult is what the handlers of an actionable boundary (turn_end, agent_before_settle)
// proposed: the entries to add (pi's drafts: {type:"custom", customType, data} or
// {type:"custom_message", customType, content, display?, details?}) and whether to make one more
// request.
type BoundaryResult struct {
	Entries  []json.RawMessage `json:"entries"`
	Continue bool              `json:"continue"`
}

// Boundary runs an actionable boundary. Processes of protocol 2 or later are asked in load order, each
// seeing (in the event's entries and continue) what the previous ones proposed and replacing what it
// returns; earlier processes only observe the event, as version 1 delivered it.
func (h *Host) Boundary(ctx context.Context, event string, fields map[string]any) BoundaryResult {
	var out BoundaryResult
	if !h.Started() {
		return out
	}
	for _, p := range h.subscribed(ctx, event) {
		ev := map[string]any{"entries": out.Entries, "continue": out.Continue}
		for k, v := range fields {
			ev[k] = v
		}
		ev["type"] = event
		if out.Entries == nil {
			ev["entries"] = []json.RawMessage{}
		}
		body, err := json.Marshal(ev)
		if err != nil {
			h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: event, Error: err.Error()})
			return out
		}
		if p.registrations().Protocol < 2 {
			p.send(hostMessage{Type: msgEvent, Event: body})
			continue
		}
		res, err := p.call(ctx, hostMessage{Type: msgEvent, Event: body}, h.cfg.CallTimeout, nil)
		if err != nil {
			if ctx.Err() == nil {
				h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: event, Error: err.Error()})
			}
			continue
		}
		var r struct {
			Entries  []json.RawMessage `json:"entries"`
			Continue *bool             `json:"continue"`
		}
		if string(res) == "null" || json.Unmarshal(res, &r) != nil {
			continue
		}
		if r.Entries != nil {
			out.Entries = r.Entries
		}
		if r.Continue != nil {
			out.Continue = *r.Continue
		}
	}
	return out
}
