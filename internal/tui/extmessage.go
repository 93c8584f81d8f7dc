package tui

import (
	"context"
	"encoding/json"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

// Custom messages whose extension registered a renderer (registerMessageRenderer) are drawn by it in
// the extension host. The block waits in the live region, drawn as pi-go draws custom messages,
// until the host answers; then it holds the extension's lines (cut to a narrower width later).

// extRenderersMsg names the customTypes extensions draw.
type extRenderersMsg struct{ types []string }

// extRenderedMsg is the host's drawing of a custom message's block.
type extRenderedMsg struct {
	item  *chatItem
	width int
	lines []string
	ok    bool
	err   error
}

// SetMessageRenderers names the customTypes extensions draw themselves.
func (u *ExtensionUI) SetMessageRenderers(types []string) { u.relay.send(extRenderersMsg{types}) }

func (msg extRenderersMsg) apply(m *model) tea.Cmd {
	m.ext.renderers = msg.types
	return nil
}

// addCustomMessage adds a custom message's block, drawn by its extension when one registered a
// renderer for it.
func (m *model) addCustomMessage(msg *provider.CustomMessage) {
	fallback := func(w int) []string { return m.r.CustomMessage(msg, w) }
	render := m.opts.ExtensionUI.renderHook()
	if render == nil || !msg.Display || !slices.Contains(m.ext.renderers, msg.CustomType) {
		m.addBlock(fallback)
		return
	}
	data, err := provider.MarshalJS(msg)
	if err != nil {
		m.addBlock(fallback)
		return
	}
	it := &chatItem{kind: chatPending, draw: fallback}
	m.chat = append(m.chat, it)
	ctx, ui, w, expanded, typ := m.ctx, m.opts.ExtensionUI, m.width, m.expandTools, msg.CustomType
	go func() { // ends with the host's answer (a deadline) or pi-go's exit
		lines, ok, err := render(ctx, data, typ, w, expanded)
		ui.relay.send(extRenderedMsg{item: it, width: w, lines: lines, ok: ok, err: err})
	}()
}

func (msg extRenderedMsg) apply(m *model) tea.Cmd {
	it := msg.item
	fallback := it.draw
	if msg.err != nil && m.ctx.Err() == nil {
		m.addWarning("message renderer: " + msg.err.Error())
	}
	if msg.ok {
		lines := msg.lines
		// Drawn again at another width, the lines are cut (the host is not asked again).
		it.draw = func(w int) []string { return m.extLines(lines, w) }
	} else {
		it.draw = fallback
	}
	it.kind, it.cache = chatLines, nil
	return nil
}

// renderHook is the hook that draws custom messages (nil without one).
func (u *ExtensionUI) renderHook() func(context.Context, json.RawMessage, string, int, bool) ([]string, bool, error) {
	if u == nil {
		return nil
	}
	return u.hooks.RenderMessage
}
