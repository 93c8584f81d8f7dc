package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/resources"
)

// Argument completion of extension commands: after "/name " the command's getArgumentCompletions
// suggests values for the text typed so far. The extension answers asynchronously (it runs in
// another process), so the question is a command and the answer a message; an answer for text that
// has changed since is dropped.

// argCompletionsMsg carries an extension command's suggestions for the text before the cursor.
type argCompletionsMsg struct {
	before string // the text before the cursor when asked
	prefix string // the argument text the suggestions replace
	items  []resources.ArgumentCompletion
}

// argCommand splits "/name args" when name is an extension command that completes its arguments.
func (m *model) argCommand(before string) (name, prefix string, ok bool) {
	name, prefix, found := strings.Cut(strings.TrimPrefix(before, "/"), " ")
	if !strings.HasPrefix(before, "/") || !found || m.sess == nil {
		return "", "", false
	}
	for _, c := range m.sess.Commands() {
		if c.Source == "extension" && c.Name == name && c.CompletesArguments {
			return name, prefix, true
		}
	}
	return "", "", false
}

// askArguments asks the command for suggestions.
func (c *completion) askArguments(m *model, before, name, prefix string) tea.Cmd {
	ctx, sess := m.ctx, m.sess
	return m.op(func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, completionAskTimeout)
		defer cancel()
		items, _ := sess.CompleteArguments(ctx, name, prefix) // a failing extension suggests nothing
		return argCompletionsMsg{before: before, prefix: prefix, items: items}
	})
}

// setArguments shows the suggestions if the text they were asked for is still there.
func (c *completion) setArguments(msg argCompletionsMsg, m *model) {
	if m.ed.TextBeforeCursor() != msg.before {
		return
	}
	items := make([]compItem, 0, len(msg.items))
	for _, it := range msg.items {
		label := it.Label
		if label == "" {
			label = it.Value
		}
		items = append(items, compItem{value: it.Value, label: label, desc: it.Description})
	}
	c.show(msg.prefix, items)
}
