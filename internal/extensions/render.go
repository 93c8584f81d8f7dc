package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// Tool calls and custom entries drawn by extensions in the TUI (pi's renderCall / renderResult,
// registerToolRenderer and registerEntryRenderer). The extension draws a block's collapsed and
// expanded forms at once, so the TUI's Ctrl+O switches between them without asking again.

// ToolRenderRequest is a tool call's block as the TUI shows it.
type ToolRenderRequest struct {
	ToolCallID string
	ToolName   string
	Args       json.RawMessage
	// Result is pi's {content, details} of the partial (IsPartial) or final result; nil before any.
	Result           json.RawMessage
	IsPartial        bool
	IsError          bool
	ExecutionStarted bool
	ArgsComplete     bool
	// DurationMs is the execution's duration, for a final result (0: not known).
	DurationMs int64
	Width      int
}

// toolRenderFields are render_tool's fields beside the shared ones of hostMessage.
type toolRenderFields struct {
	ToolName         string `json:"toolName,omitempty"`
	ArgsComplete     bool   `json:"argsComplete,omitempty"`
	ExecutionStarted bool   `json:"executionStarted,omitempty"`
	IsPartial        bool   `json:"isPartial,omitempty"`
	IsError          bool   `json:"isError,omitempty"`
	DurationMs       int64  `json:"durationMs,omitempty"`
}

// Rendering is a block an extension drew: its lines collapsed and expanded.
type Rendering struct {
	Lines         []string `json:"lines"`
	ExpandedLines []string `json:"expandedLines"`
}

// ToolRenderers says which tools' calls extensions may draw: the names of registered tools with
// their own renderers, and all (any tool) when an extension registered a resolver.
func (h *Host) ToolRenderers() (names []string, all bool) {
	if !h.Started() {
		return nil, false
	}
	for _, p := range h.live(context.Background()) {
		r := p.registrations()
		all = all || r.ToolRendererResolvers
		for _, n := range r.ToolRenderers {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names, all
}

// RenderTool asks the extensions that may draw req's tool to draw its block at req.Width. ok is
// false when none does (the TUI draws its own); a failing renderer is an error.
func (h *Host) RenderTool(ctx context.Context, req ToolRenderRequest) (r Rendering, ok bool, err error) {
	for _, p := range h.live(ctx) {
		regs := p.registrations()
		if !regs.ToolRendererResolvers && !slices.Contains(regs.ToolRenderers, req.ToolName) {
			continue
		}
		m := hostMessage{Type: msgRenderTool, ToolCallID: req.ToolCallID, Args: req.Args, Result: req.Result, Width: req.Width,
			toolRenderFields: toolRenderFields{ToolName: req.ToolName, ArgsComplete: req.ArgsComplete,
				ExecutionStarted: req.ExecutionStarted, IsPartial: req.IsPartial, IsError: req.IsError, DurationMs: req.DurationMs}}
		if len(m.Args) == 0 {
			m.Args = json.RawMessage(`{}`)
		}
		r, ok, err := h.callRendering(ctx, p, m, "render "+req.ToolName)
		if err != nil || ok {
			return r, ok, err
		}
	}
	return Rendering{}, false, nil
}

// EntryRenderers lists the customTypes of the session entries extensions draw.
func (h *Host) EntryRenderers() []string {
	if !h.Started() {
		return nil
	}
	var out []string
	for _, p := range h.live(context.Background()) {
		for _, t := range p.registrations().EntryRenderers {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// RenderEntry asks the extension that registered a renderer for the custom entry's customType to
// draw it (entry is pi's JSON of the session entry). ok is false when none draws it.
func (h *Host) RenderEntry(ctx context.Context, entry json.RawMessage, customType string, width int) (r Rendering, ok bool, err error) {
	for _, p := range h.live(ctx) {
		if !slices.Contains(p.registrations().EntryRenderers, customType) {
			continue
		}
		return h.callRendering(ctx, p, hostMessage{Type: msgRenderEntry, Entry: entry, Width: width}, "render "+customType)
	}
	return Rendering{}, false, nil
}

func (h *Host) callRendering(ctx context.Context, p *process, m hostMessage, what string) (Rendering, bool, error) {
	res, err := p.call(ctx, m, h.cfg.CallTimeout, nil)
	if err != nil {
		return Rendering{}, false, err
	}
	var r *Rendering
	if err := json.Unmarshal(res, &r); err != nil {
		return Rendering{}, false, fmt.Errorf("%s: %w", what, err)
	}
	if r == nil {
		return Rendering{}, false, nil
	}
	return *r, true, nil
}

// Suggestions are an autocomplete provider's answer: items replacing Prefix, the text before the
// cursor.
type Suggestions struct {
	Items []struct {
		Value       string `json:"value"`
		Label       string `json:"label,omitempty"`
		Description string `json:"description,omitempty"`
	} `json:"items"`
	Prefix string `json:"prefix"`
}

// CompleteEditor asks the autocomplete providers extensions added (ctx.ui.addAutocompleteProvider,
// in pi's TypeScript extensions) for suggestions at the editor's cursor (row and column in runes).
// ok is false when they have none (pi-go's own completion stands).
func (h *Host) CompleteEditor(ctx context.Context, lines []string, row, col int) (s Suggestions, ok bool, err error) {
	if !h.Started() || h.sidecar == nil {
		return Suggestions{}, false, nil
	}
	res, err := h.sidecar.call(ctx, hostMessage{Type: msgAutocomplete, Lines: lines, CursorLine: &row, CursorCol: &col}, h.cfg.CallTimeout, nil)
	if err != nil {
		return Suggestions{}, false, err
	}
	var r *Suggestions
	if err := json.Unmarshal(res, &r); err != nil {
		return Suggestions{}, false, fmt.Errorf("autocomplete: %w", err)
	}
	if r == nil || len(r.Items) == 0 {
		return Suggestions{}, false, nil
	}
	return *r, true, nil
}

// TerminalInput offers a key's bytes to the input listeners extensions registered
// (ctx.ui.onTerminalInput, in pi's TypeScript extensions): consume drops the key, out is its bytes
// after them (unchanged when they left it).
func (h *Host) TerminalInput(ctx context.Context, data string) (consume bool, out string, err error) {
	if !h.Started() || h.sidecar == nil {
		return false, data, nil
	}
	res, err := h.sidecar.call(ctx, hostMessage{Type: msgTermInput, Data: data}, h.cfg.CallTimeout, nil)
	if err != nil {
		return false, data, err
	}
	var r *struct {
		Consume bool    `json:"consume"`
		Data    *string `json:"data"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return false, data, fmt.Errorf("terminal input: %w", err)
	}
	switch {
	case r == nil:
		return false, data, nil
	case r.Consume:
		return true, "", nil
	case r.Data != nil:
		return false, *r.Data, nil
	}
	return false, data, nil
}
