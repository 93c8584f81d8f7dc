package picker

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Messages of the scoped-models picker. Enabled is the list of "provider/id" in cycling order; All
// says every model is enabled (no scope: Ctrl+P cycles through all of them).
type (
	// ScopeChanged: the selection changed; it applies to this session at once.
	ScopeChanged struct {
		Enabled []string
		All     bool
	}
	// ScopeSaved: the selection is to be saved to settings (enabledModels).
	ScopeSaved struct {
		Enabled []string
		All     bool
	}
)

// KeyMatcher tells whether a key is bound to an action of the keymap (pi's app.models.* ids).
type KeyMatcher func(k tea.KeyMsg, action string) bool

// ScopedModels is /scoped-models (pi's ScopedModelsSelectorComponent): every available model, the
// enabled ones first in cycling order, each toggled with Enter; Ctrl+A enables all (the matches of
// the search when there is one), Ctrl+X clears, Ctrl+P toggles the model's provider, Alt+Up/Down
// reorder, Ctrl+S saves. Changes apply to the session at once and are saved only on Ctrl+S.
type ScopedModels struct {
	r      *render.Renderer
	keys   KeyMatcher
	models map[string]*provider.Model
	allIDs []string
	// enabled is nil when every model is enabled.
	enabled []string
	shown   []string
	query   filterField
	cursor  int
	dirty   bool
	hint    string // the keys line
	saveKey string // the key that saves, for the header
}

// NewScopedModels returns the picker over all (the available models) with enabled selected (nil:
// all). keys matches the app.models.* actions; hint is the keys line to show and saveKey the name
// of app.models.save's key.
func NewScopedModels(r *render.Renderer, all []*provider.Model, enabled []string, keys KeyMatcher, hint, saveKey string) *ScopedModels {
	s := &ScopedModels{r: r, keys: keys, models: map[string]*provider.Model{}, hint: hint, saveKey: saveKey, query: newFilterField()}
	for _, m := range all {
		id := m.Provider + "/" + m.ID
		if _, dup := s.models[id]; !dup {
			s.models[id] = m
			s.allIDs = append(s.allIDs, id)
		}
	}
	if enabled != nil {
		s.enabled = slices.Clone(enabled)
	}
	s.refresh()
	return s
}

func (s *ScopedModels) isEnabled(id string) bool {
	return s.enabled == nil || slices.Contains(s.enabled, id)
}

// normalize collapses a list covering every model back to "all" (nil), as pi does.
func (s *ScopedModels) normalize(list []string) []string {
	if len(list) == len(s.allIDs) && !slices.ContainsFunc(s.allIDs, func(id string) bool { return !slices.Contains(list, id) }) {
		return nil
	}
	return list
}

// sorted is the enabled models in order, then the others.
func (s *ScopedModels) sorted() []string {
	if s.enabled == nil {
		return slices.Clone(s.allIDs)
	}
	out := slices.Clone(s.enabled)
	for _, id := range s.allIDs {
		if !slices.Contains(s.enabled, id) {
			out = append(out, id)
		}
	}
	return out
}

func (s *ScopedModels) refresh() {
	ids := s.sorted()
	s.shown = FuzzyFilter(ids, s.query.Value(), func(id string) string {
		if m := s.models[id]; m != nil {
			return m.Provider + "/" + m.ID + " " + m.Name
		}
		return id
	})
	s.cursor = min(s.cursor, max(len(s.shown)-1, 0))
}

func (s *ScopedModels) changed() tea.Cmd {
	s.dirty = true
	s.refresh()
	return emit(ScopeChanged{Enabled: slices.Clone(s.enabled), All: s.enabled == nil})
}

// targets are the models Ctrl+A and Ctrl+X act on: the search's matches, or every model.
func (s *ScopedModels) targets() []string {
	if s.query.Value() != "" {
		return slices.Clone(s.shown)
	}
	return nil
}

func (s *ScopedModels) enableAll(targets []string) {
	if s.enabled == nil {
		return
	}
	if targets == nil {
		targets = s.allIDs
	}
	for _, id := range targets {
		if !slices.Contains(s.enabled, id) {
			s.enabled = append(s.enabled, id)
		}
	}
	s.enabled = s.normalize(s.enabled)
}

func (s *ScopedModels) clearAll(targets []string) {
	if s.enabled == nil {
		if targets == nil {
			s.enabled = []string{}
			return
		}
		s.enabled = slices.DeleteFunc(slices.Clone(s.allIDs), func(id string) bool { return slices.Contains(targets, id) })
		return
	}
	if targets == nil {
		s.enabled = []string{}
		return
	}
	s.enabled = slices.DeleteFunc(s.enabled, func(id string) bool { return slices.Contains(targets, id) })
}

func (s *ScopedModels) toggle(id string) {
	switch {
	case s.enabled == nil:
		s.enabled = slices.DeleteFunc(slices.Clone(s.allIDs), func(x string) bool { return x == id })
	case slices.Contains(s.enabled, id):
		s.enabled = slices.DeleteFunc(s.enabled, func(x string) bool { return x == id })
	default:
		s.enabled = s.normalize(append(s.enabled, id))
	}
}

// Update applies a key.
func (s *ScopedModels) Update(msg tea.Msg) (Picker, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return s, nil
	}
	var current string
	if len(s.shown) > 0 {
		current = s.shown[s.cursor]
	}
	name := editor.KeyName(k)
	switch {
	case s.keys(k, "tui.select.up"):
		if len(s.shown) > 0 {
			s.cursor = (s.cursor - 1 + len(s.shown)) % len(s.shown)
		}
	case s.keys(k, "tui.select.down"):
		if len(s.shown) > 0 {
			s.cursor = (s.cursor + 1) % len(s.shown)
		}
	case s.keys(k, "tui.select.pageUp"):
		s.cursor = max(s.cursor-scopedRows, 0)
	case s.keys(k, "tui.select.pageDown"):
		s.cursor = max(min(s.cursor+scopedRows, len(s.shown)-1), 0)
	case s.keys(k, "app.models.reorderUp") || s.keys(k, "app.models.reorderDown"):
		delta := 1
		if s.keys(k, "app.models.reorderUp") {
			delta = -1
		}
		i := slices.Index(s.enabled, current)
		if s.enabled == nil || i < 0 || i+delta < 0 || i+delta >= len(s.enabled) {
			return s, nil
		}
		s.enabled[i], s.enabled[i+delta] = s.enabled[i+delta], s.enabled[i]
		cmd := s.changed()
		s.cursor = max(slices.Index(s.shown, current), 0) // the cursor stays on the moved model
		return s, cmd
	case s.keys(k, "tui.select.confirm"):
		if current == "" {
			return s, nil
		}
		s.toggle(current)
		return s, s.changed()
	case s.keys(k, "app.models.enableAll"):
		s.enableAll(s.targets())
		return s, s.changed()
	case s.keys(k, "app.models.clearAll"):
		s.clearAll(s.targets())
		return s, s.changed()
	case s.keys(k, "app.models.toggleProvider"):
		m := s.models[current]
		if m == nil {
			return s, nil
		}
		var ids []string
		for _, id := range s.allIDs {
			if s.models[id].Provider == m.Provider {
				ids = append(ids, id)
			}
		}
		if !slices.ContainsFunc(ids, func(id string) bool { return !s.isEnabled(id) }) {
			s.clearAll(ids)
		} else {
			s.enableAll(ids)
		}
		return s, s.changed()
	case s.keys(k, "app.models.save"):
		s.dirty = false
		return s, emit(ScopeSaved{Enabled: slices.Clone(s.enabled), All: s.enabled == nil})
	case name == "ctrl+c":
		if s.query.Value() != "" {
			s.query.Set("")
			s.refresh()
			return s, nil
		}
		return s, emit(Cancelled{})
	case name == "esc":
		return s, emit(Cancelled{})
	default:
		if s.query.Key(k) {
			s.cursor = 0
			s.refresh()
		}
	}
	return s, nil
}

// scopedRows is how many models are shown at once (pi's 8).
const scopedRows = 8

// View draws the header, the search line, the models, the selected model's name and the key hints.
func (s *ScopedModels) View(width, rows int) []string {
	th := s.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, "Model Configuration"), width),
		truncate(" "+th.Fg(theme.Muted, "Session-only. "+s.saveKey+" to save to settings."), width),
		truncate(" "+th.Fg(theme.Muted, "Search: ")+s.query.View(th, th.PlainStyle()), width), ""}
	visible := max(min(scopedRows, rows-10), 3)
	if len(s.shown) == 0 {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "No matching models"), width))
	}
	start := max(0, min(s.cursor-visible/2, len(s.shown)-visible))
	end := min(start+visible, len(s.shown))
	for i := start; i < end; i++ {
		id := s.shown[i]
		m := s.models[id]
		prefix := "  "
		text := id
		if m != nil {
			text = m.ID
		}
		if i == s.cursor {
			prefix, text = th.Fg(theme.Accent, "→ "), th.Fg(theme.Accent, text)
		}
		status := "  "
		if m != nil && s.isEnabled(id) {
			status = th.Fg(theme.Accent, "✓ ")
		}
		badge := " [unavailable]"
		if m != nil {
			badge = " [" + m.Provider + "]"
		}
		out = append(out, truncate(prefix+status+text+th.Fg(theme.Muted, badge), width))
	}
	if start > 0 || end < len(s.shown) {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "("+itoa(s.cursor+1)+"/"+itoa(len(s.shown))+")"), width))
	}
	if len(s.shown) > 0 {
		name := "Model unavailable"
		if m := s.models[s.shown[s.cursor]]; m != nil {
			name = "Model Name: " + m.Name
		}
		out = append(out, "", truncate("  "+th.Fg(theme.Muted, name), width))
	}
	count := th.Fg(theme.Dim, "all enabled")
	if s.enabled != nil {
		n, missing := 0, 0
		for _, id := range s.enabled {
			if s.models[id] != nil {
				n++
			} else {
				missing++
			}
		}
		c := itoa(n) + "/" + itoa(len(s.allIDs)) + " enabled"
		if missing > 0 {
			c += " · " + itoa(missing) + " unavailable"
		}
		count = th.Fg(theme.Dim, c)
	}
	state := count
	if s.dirty {
		state += " " + th.Fg(theme.Warning, "(unsaved)")
	}
	out = append(out, "")
	// The count goes on a line of its own when the keys leave no room for it.
	if footer := "  " + th.Fg(theme.Dim, s.hint+" · ") + state; render.Width(footer) <= width {
		out = append(out, footer)
	} else {
		out = append(out, truncate("  "+th.Fg(theme.Dim, s.hint), width), truncate("  "+state, width))
	}
	return append(out, rule)
}
