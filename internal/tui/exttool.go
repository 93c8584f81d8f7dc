package tui

import (
	"encoding/json"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// Tool calls an extension chose to draw (pi's renderCall / renderResult of a registered tool, or a
// registerToolRenderer resolver, built-in tools included) are drawn in the extension host by pi's own
// tool block. The TUI asks again whenever the block changes (arguments streaming in, the execution
// starting, a partial or the final result); until the first answer it shows its own drawing. A
// finished call is printed once the host has drawn its final state. The host draws the collapsed
// and expanded forms at once, so Ctrl+O switches between them at once. A declining or failing host
// leaves the call to pi-go's drawing.

// extToolDraw is the host's part of a tool block. It belongs to the UI goroutine.
type extToolDraw struct {
	id       string
	ver      int  // bumped at every change of what the block shows
	asked    bool // a request is in flight
	got      int  // the version r shows
	width    int  // the width r was drawn at
	r        extensions.Rendering
	have     bool
	off      bool // the host does not draw this call: pi-go does
	started  bool
	duration time.Duration
}

// extToolRenderersMsg names the tools extensions draw (all: any tool, a resolver is registered).
type extToolRenderersMsg struct {
	names []string
	all   bool
}

// extToolRenderedMsg is the host's drawing of a tool block at version ver.
type extToolRenderedMsg struct {
	item  *chatItem
	ver   int
	width int
	r     extensions.Rendering
	ok    bool
	err   error
}

// SetToolRenderers names the tools whose calls extensions draw; all: any tool may be (an extension
// registered a registerToolRenderer resolver).
func (u *ExtensionUI) SetToolRenderers(names []string, all bool) {
	u.relay.send(extToolRenderersMsg{names: names, all: all})
}

func (msg extToolRenderersMsg) apply(m *model) tea.Cmd {
	m.ext.toolRenderers, m.ext.allToolRenderers = msg.names, msg.all
	return nil
}

// extToolFor is the host's part of a new tool block named name, or nil when no extension draws it.
func (m *model) extToolFor(id, name string) *extToolDraw {
	if m.opts.ExtensionUI == nil || m.opts.ExtensionUI.hooks.RenderTool == nil {
		return nil
	}
	if !m.ext.allToolRenderers && !slices.Contains(m.ext.toolRenderers, name) {
		return nil
	}
	return &extToolDraw{id: id}
}

// extToolChanged tells the host a tool block changed.
func (m *model) extToolChanged(it *chatItem) {
	e := it.extTool
	if e == nil || e.off {
		return
	}
	if it.tool.Status != render.ToolPending {
		e.started = true
	}
	if it.final && !it.toolStart.IsZero() && e.duration == 0 {
		e.duration = time.Since(it.toolStart)
	}
	e.ver++
	m.extToolAsk(it)
}

// extToolAsk asks the host to draw the block's current version, unless a request is in flight (its
// answer asks again when it is stale).
func (m *model) extToolAsk(it *chatItem) {
	e := it.extTool
	if e.asked || e.off {
		return
	}
	e.asked = true
	v := it.tool
	req := extensions.ToolRenderRequest{ToolCallID: e.id, ToolName: v.Name, Args: v.Args, IsError: v.IsError,
		ExecutionStarted: e.started, ArgsComplete: e.started || it.final, IsPartial: !it.final,
		DurationMs: e.duration.Milliseconds(), Width: m.width}
	if !json.Valid(req.Args) {
		req.Args = nil
	}
	if v.Result != nil {
		data, err := provider.MarshalJS(struct {
			Content []provider.Content `json:"content"`
			Details any                `json:"details,omitempty"`
		}{v.Result.Content, v.Result.Details})
		if err == nil {
			req.Result = data
		}
	}
	draw, ui, ctx, ver := m.opts.ExtensionUI.hooks.RenderTool, m.opts.ExtensionUI, m.ctx, e.ver
	go func() { // ends with the host's answer (the host's deadline) or pi-go's exit
		r, ok, err := draw(ctx, req)
		ui.relay.send(extToolRenderedMsg{item: it, ver: ver, width: req.Width, r: r, ok: ok, err: err})
	}()
}

func (msg extToolRenderedMsg) apply(m *model) tea.Cmd {
	it := msg.item
	e := it.extTool
	e.asked = false
	switch {
	case msg.err != nil:
		if m.ctx.Err() == nil {
			m.addWarning("tool renderer (" + it.tool.Name + "): " + msg.err.Error())
		}
		e.off = true
	case !msg.ok:
		e.off = true
	case msg.ver >= e.got:
		e.r, e.got, e.width, e.have = msg.r, msg.ver, msg.width, true
	}
	it.cache = nil
	if !e.off && (e.got < e.ver || e.width != m.width) {
		if e.width != m.width {
			e.ver++
		}
		m.extToolAsk(it)
	}
	if slices.Contains(m.done, it) {
		m.relayout() // printed already (drawn again at another width): the scrollback follows
	}
	return nil
}

// extToolsRedraw asks the host again for the tool blocks not printed yet (the width or the theme
// changed); printed ones keep their lines, cut to a narrower width.
func (m *model) extToolsRedraw() {
	for _, it := range m.chat {
		if it.kind == chatTool && it.extTool != nil && it.extTool.have {
			it.extTool.ver++
			m.extToolAsk(it)
		}
	}
}

// extToolWaiting reports whether a finished tool block waits for the host's drawing of its final
// state before it is printed.
func (it *chatItem) extToolWaiting() bool {
	e := it.extTool
	return e != nil && !e.off && e.got < e.ver
}

// extToolLines is the host's drawing of a tool block, when it has one.
func (m *model) extToolLines(it *chatItem, width int) ([]string, bool) {
	e := it.extTool
	if e == nil || e.off || !e.have {
		return nil, false
	}
	lines := e.r.Lines
	if m.expandTools {
		lines = e.r.ExpandedLines
	}
	return m.extLines(lines, width), true
}
