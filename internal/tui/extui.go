package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// ExtensionUI is how extensions reach the user in the TUI (Options.ExtensionUI): their dialogs
// (select, confirm, input) open as pickers in place of the editor, their notifications are lines of
// the transcript. A dialog asked before the TUI runs waits for it. It is safe for concurrent use.
type ExtensionUI struct {
	relay relay[tea.Msg]
	hooks ExtensionHooks // set by Bind before the TUI runs
}

// terminalHook is the hook that tells the host the terminal's size (nil without one).
func (u *ExtensionUI) terminalHook() func(int, int, *extensions.Theme) {
	if u == nil {
		return nil
	}
	return u.hooks.Terminal
}

// NewExtensionUI returns a bridge to attach to the TUI.
func NewExtensionUI() *ExtensionUI { return &ExtensionUI{} }

// attach starts delivering to fn, first what was asked so far; detach with nil.
func (u *ExtensionUI) attach(fn func(tea.Msg)) {
	if u == nil {
		return
	}
	u.relay.attach(fn)
}

// extDialogMsg opens an extension's dialog; its answer goes to reply (ok false: cancelled).
type extDialogMsg struct {
	ctx         context.Context // the asker's: a dialog still waiting when it ends is not shown
	title       string
	options     []string // select and confirm; nil: input
	placeholder string
	secret      bool   // input: mask what is typed (a login's secret prompt)
	prefill     string // editor: the text the user starts from
	reply       chan extAnswer
}

type extAnswer struct {
	value string
	ok    bool
}

// extAnswerMsg is a dialog's picker closing.
type extAnswerMsg struct {
	reply chan extAnswer
	extAnswer
}

// extNoticeMsg is an extension's notification.
type extNoticeMsg struct{ text, kind string }

func (u *ExtensionUI) ask(ctx context.Context, d extDialogMsg) (string, bool) {
	d.ctx, d.reply = ctx, make(chan extAnswer, 1)
	u.relay.send(d)
	select {
	case a := <-d.reply:
		return a.value, a.ok
	case <-ctx.Done():
		return "", false
	}
}

// Select asks the user to choose one of options.
func (u *ExtensionUI) Select(ctx context.Context, title string, options []string) (string, bool) {
	return u.ask(ctx, extDialogMsg{title: title, options: options})
}

// Confirm asks a yes/no question.
func (u *ExtensionUI) Confirm(ctx context.Context, title, message string) bool {
	t := title
	if message != "" {
		t += "\n" + message
	}
	v, ok := u.ask(ctx, extDialogMsg{title: t, options: []string{"Yes", "No"}})
	return ok && v == "Yes"
}

// Input asks for a line of text.
func (u *ExtensionUI) Input(ctx context.Context, title, placeholder string) (string, bool) {
	return u.ask(ctx, extDialogMsg{title: title, placeholder: placeholder})
}

// Editor asks for text, starting from prefill (ctx.ui.editor).
func (u *ExtensionUI) Editor(ctx context.Context, title, prefill string) (string, bool) {
	return u.ask(ctx, extDialogMsg{title: title, prefill: prefill})
}

// Notify shows a notification: kind "error" and "warning" as such, anything else as a status line.
func (u *ExtensionUI) Notify(text, kind string) { u.relay.send(extNoticeMsg{text: text, kind: kind}) }

// extDialogQueue holds extensions' dialogs while one is open, so that each caller gets its answer:
// two extensions (or two handlers of one) may ask at once, and a second dialog replacing the first
// would leave the first caller waiting for ever.
type extDialogQueue struct {
	open    chan extAnswer // the open dialog's reply, or nil
	pending []extDialogMsg
}

// queueExtDialog opens d, in place of any other picker (the extension's question comes first),
// unless another extension dialog is open: then d waits for it.
func (m *model) queueExtDialog(d extDialogMsg) {
	if d.ctx != nil && d.ctx.Err() != nil {
		return // asked and given up before the TUI saw it
	}
	if m.extDialogs.open != nil && m.sel != nil {
		m.extDialogs.pending = append(m.extDialogs.pending, d)
		return
	}
	m.openExtDialog(d)
}

// extDialogAnswered delivers a dialog's answer and opens the next waiting dialog.
func (m *model) extDialogAnswered(a extAnswerMsg) {
	a.reply <- a.extAnswer
	if a.reply == m.extDialogs.open {
		m.extDialogs.open = nil
	}
	for m.extDialogs.open == nil && len(m.extDialogs.pending) > 0 {
		next := m.extDialogs.pending[0]
		m.extDialogs.pending = m.extDialogs.pending[1:]
		if next.ctx != nil && next.ctx.Err() != nil {
			continue // its caller stopped waiting (aborted, or the extension's call ended)
		}
		m.openExtDialog(next)
	}
}

// openExtDialog shows a dialog as a picker.
func (m *model) openExtDialog(d extDialogMsg) {
	m.extDialogs.open = d.reply
	cancel := extAnswerMsg{reply: d.reply}
	if d.options == nil {
		in := picker.NewTextInput(m.r, d.title, func(text string) tea.Msg {
			return extAnswerMsg{reply: d.reply, extAnswer: extAnswer{value: text, ok: true}}
		}, cancel)
		in.SetText(d.prefill)
		in.SetPlaceholder(d.placeholder)
		in.SetSecret(d.secret)
		m.sel = in
		return
	}
	items := make([]picker.Item, len(d.options))
	for i, o := range d.options {
		items[i] = picker.Item{Label: o, Value: o}
	}
	p := picker.NewList(m.r, d.title, items, func(it picker.Item) tea.Msg {
		return extAnswerMsg{reply: d.reply, extAnswer: extAnswer{value: it.Value.(string), ok: true}}
	})
	p.SetCancel(cancel)
	p.SetHint("↑↓ navigate · enter select · esc cancel")
	m.sel = p
}

func (m *model) extNotice(n extNoticeMsg) {
	switch n.kind {
	case "error":
		m.addError(n.text)
	case "warning":
		m.addWarning(n.text)
	default:
		m.addStatus(n.text)
	}
}
