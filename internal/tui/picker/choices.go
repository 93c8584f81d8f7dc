package picker

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// Messages of the model, thinking level and fork pickers.
type (
	// ModelChosen: Enter on a model.
	ModelChosen struct{ Model *provider.Model }
	// ThinkingChosen: Enter on a thinking level.
	ThinkingChosen struct{ Level provider.ThinkingLevel }
	// ForkChosen: Enter on a user message; a new session continues from just before it.
	ForkChosen struct{ EntryID string }
)

// Models is Ctrl+L and /model: the models, searchable (search is typed already), current marked.
func Models(r *render.Renderer, models []*provider.Model, current *provider.Model, search string) *List {
	var items []Item
	for _, mdl := range models {
		items = append(items, Item{Label: mdl.ID, Detail: "[" + mdl.Provider + "]",
			Search: mdl.Provider + "/" + mdl.ID + " " + mdl.Name, Value: mdl, Mark: provider.SameModel(mdl, current)})
	}
	p := NewList(r, "Select model", items, func(it Item) tea.Msg { return ModelChosen{Model: it.Value.(*provider.Model)} })
	p.SetEmpty("No models available. Set an API key or add a provider to ~/.pi/agent/models.json.")
	p.SetHint("↑↓ navigate · enter select · esc cancel")
	if search != "" {
		p.SetQuery(search)
	}
	return p
}

// ThinkingLevels is /thinking without an argument: the levels, current marked.
func ThinkingLevels(r *render.Renderer, levels []provider.ThinkingLevel, current provider.ThinkingLevel) *List {
	var items []Item
	for _, l := range levels {
		items = append(items, Item{Label: string(l), Value: l, Mark: l == current})
	}
	p := NewList(r, "Thinking level", items, func(it Item) tea.Msg { return ThinkingChosen{Level: it.Value.(provider.ThinkingLevel)} })
	p.SetHint("↑↓ navigate · enter select · esc cancel")
	return p
}

// ForkPoint is a user message of the active branch that a fork can start before.
type ForkPoint struct{ EntryID, Text string }

// Fork is /fork: this branch's user messages, the cursor on the newest.
func Fork(r *render.Renderer, points []ForkPoint) *List {
	var items []Item
	for _, fp := range points {
		items = append(items, Item{Label: oneLine(fp.Text), Search: fp.Text, Value: fp})
	}
	p := NewList(r, "Fork from message", items, func(it Item) tea.Msg { return ForkChosen{EntryID: it.Value.(ForkPoint).EntryID} })
	p.SetCursor(len(items) - 1)
	p.SetHint("↑↓ navigate · enter fork · esc cancel")
	return p
}
