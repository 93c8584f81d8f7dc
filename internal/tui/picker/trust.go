package picker

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// TrustChosen: Enter on a project trust option (/trust).
type TrustChosen struct{ Option config.TrustOption }

// Trust is /trust: the trust options for cwd, the saved decision marked and under the cursor, the
// saved decision and this run's state in the hint (pi's TrustSelectorComponent).
func Trust(r *render.Renderer, cwd string, options []config.TrustOption, saved *config.TrustDecision, trustedNow bool) *List {
	var items []Item
	cursor := 0
	for i, o := range options {
		mark := saved != nil && o.SavedPath != "" && saved.Trusted == o.Trusted && saved.Path == o.SavedPath
		if mark {
			cursor = i
		}
		items = append(items, Item{Label: o.Label, Value: o, Mark: mark})
	}
	p := NewList(r, "Project trust  "+cwd, items, func(it Item) tea.Msg { return TrustChosen{Option: it.Value.(config.TrustOption)} })
	p.SetCursor(cursor)
	current := "untrusted"
	if trustedNow {
		current = "trusted"
	}
	p.SetHint("Saved decision: " + describeDecision(options, saved) + " · Current session: " + current + " · ↑↓ navigate · enter save · esc cancel")
	return p
}

// describeDecision is pi's formatDecision: none, or trusted/untrusted with the directory it was saved
// for, "inherited from" when that is not cwd itself.
func describeDecision(options []config.TrustOption, saved *config.TrustDecision) string {
	if saved == nil {
		return "none"
	}
	label := "untrusted"
	if saved.Trusted {
		label = "trusted"
	}
	if len(options) > 0 && options[0].SavedPath != "" && saved.Path != options[0].SavedPath {
		return label + " (inherited from " + saved.Path + ")"
	}
	return label + " (" + saved.Path + ")"
}
