package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
)

// Autocomplete providers extensions add (ctx.ui.addAutocompleteProvider) stack on pi-go's own
// completion, as in pi: after each edit pi-go shows its own suggestions at once and asks the
// providers, in the extension host; when they suggest something for the text still in the editor,
// their list replaces pi-go's. An item is applied as pi's base provider applies it: the prefix before
// the cursor replaced by its value.

// extAutocompleteOnMsg: an extension added an autocomplete provider.
type extAutocompleteOnMsg struct{ active bool }

// extSuggestionsMsg is the providers' answer for the editor's text and cursor when asked.
type extSuggestionsMsg struct {
	text     string
	row, col int
	s        extensions.Suggestions
}

// SetAutocomplete says whether extensions added autocomplete providers.
func (u *ExtensionUI) SetAutocomplete(active bool) { u.relay.send(extAutocompleteOnMsg{active}) }

func (msg extAutocompleteOnMsg) apply(m *model) tea.Cmd {
	m.ext.autocomplete = msg.active
	return nil
}

// refresh updates the suggestions after an edit: pi-go's own at once, the extensions' providers'
// when they answer.
func (c *completion) refresh(m *model) tea.Cmd {
	own := c.refreshBuiltin(m)
	ask := m.opts.ExtensionUI.autocompleteHook()
	if ask == nil || !m.ext.autocomplete || m.ed.Empty() {
		return own
	}
	text := m.ed.Text()
	row, col := m.ed.Cursor()
	ctx := m.ctx
	return tea.Batch(own, m.op(func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, completionAskTimeout)
		defer cancel()
		s, ok, _ := ask(ctx, strings.Split(text, "\n"), row, col) // a failing provider suggests nothing
		if !ok {
			return nil
		}
		return extSuggestionsMsg{text: text, row: row, col: col, s: s}
	}))
}

func (msg extSuggestionsMsg) apply(m *model) tea.Cmd {
	row, col := m.ed.Cursor()
	if m.ed.Text() != msg.text || row != msg.row || col != msg.col {
		return nil // the text changed since: a newer question is on its way
	}
	items := make([]compItem, 0, len(msg.s.Items))
	for _, it := range msg.s.Items {
		label := it.Label
		if label == "" {
			label = it.Value
		}
		items = append(items, compItem{value: it.Value, label: label, desc: it.Description})
	}
	m.comp.show(msg.s.Prefix, items)
	return nil
}

// autocompleteHook is the hook that asks the extensions' providers (nil without one).
func (u *ExtensionUI) autocompleteHook() func(context.Context, []string, int, int) (extensions.Suggestions, bool, error) {
	if u == nil {
		return nil
	}
	return u.hooks.Autocomplete
}
