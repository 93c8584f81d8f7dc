package tui

import (
	"encoding/json"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
)

// Custom session entries an extension appends (pi.appendEntry) are drawn in the transcript when an
// extension registered a renderer for their customType (registerEntryRenderer), as pi's interactive
// mode draws them; without one they are not shown, as in pi. The host draws the collapsed and
// expanded forms at once, for Ctrl+O.

// extEntryRenderersMsg names the customTypes of the entries extensions draw.
type extEntryRenderersMsg struct{ types []string }

// extEntryMsg is a custom entry appended to the session (pi's JSON of the entry).
type extEntryMsg struct {
	entry      json.RawMessage
	customType string
}

// extEntryRenderedMsg is the host's drawing of an entry's block.
type extEntryRenderedMsg struct {
	item *chatItem
	r    extensions.Rendering
	ok   bool
	err  error
}

// SetEntryRenderers names the customTypes of the session entries extensions draw.
func (u *ExtensionUI) SetEntryRenderers(types []string) { u.relay.send(extEntryRenderersMsg{types}) }

// AddCustomEntry shows a custom entry appended to the session, when an extension draws its type.
func (u *ExtensionUI) AddCustomEntry(entry json.RawMessage, customType string) {
	u.relay.send(extEntryMsg{entry: entry, customType: customType})
}

func (msg extEntryRenderersMsg) apply(m *model) tea.Cmd {
	m.ext.entryRenderers = msg.types
	return nil
}

func (msg extEntryMsg) apply(m *model) tea.Cmd {
	if m.opts.ExtensionUI == nil || m.opts.ExtensionUI.hooks.RenderEntry == nil || !slices.Contains(m.ext.entryRenderers, msg.customType) {
		return nil
	}
	// Held in the live region (nothing drawn) until the host answers, before a streaming answer as
	// pi places it.
	it := &chatItem{kind: chatPending, draw: func(int) []string { return nil }}
	at := len(m.chat)
	if s := m.streaming(); s != nil {
		at = slices.Index(m.chat, s)
	}
	m.chat = slices.Insert(m.chat, at, it)
	draw, ui, ctx, w := m.opts.ExtensionUI.hooks.RenderEntry, m.opts.ExtensionUI, m.ctx, m.width
	go func() { // ends with the host's answer (a deadline) or pi-go's exit
		r, ok, err := draw(ctx, msg.entry, msg.customType, w)
		ui.relay.send(extEntryRenderedMsg{item: it, r: r, ok: ok, err: err})
	}()
	return nil
}

func (msg extEntryRenderedMsg) apply(m *model) tea.Cmd {
	it := msg.item
	if msg.err != nil && m.ctx.Err() == nil {
		m.addWarning("entry renderer: " + msg.err.Error())
	}
	r := msg.r
	it.draw = func(w int) []string {
		if !msg.ok {
			return nil
		}
		lines := r.Lines
		if m.expandTools {
			lines = r.ExpandedLines
		}
		return m.extLines(lines, w) // drawn again at another width, the lines are cut
	}
	it.kind, it.cache = chatLines, nil
	return nil
}
