package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// cmdScopedModels is /scoped-models: choose the models Ctrl+P cycles through. The choice applies
// to this session at once; Ctrl+S saves it as settings.json's enabledModels (as pi, a list of
// "provider/id"; removed when every model is enabled).
func (m *model) cmdScopedModels(string) tea.Cmd {
	available := m.sess.AvailableModels()
	hint := strings.Join([]string{
		m.keys.Key("tui.select.confirm") + " toggle",
		m.keys.Key("app.models.enableAll") + " all",
		m.keys.Key("app.models.clearAll") + " clear",
		m.keys.Key("app.models.toggleProvider") + " provider",
		m.keys.Key("app.models.reorderUp") + "/" + m.keys.Key("app.models.reorderDown") + " reorder",
		m.keys.Key("app.models.save") + " save",
	}, " · ")
	m.sel = picker.NewScopedModels(m.r, available, m.enabledModelIDs(available), m.keys.Matches, hint, m.keys.Key("app.models.save"))
	return nil
}

// enabledModelIDs are the "provider/id" of the session's scope, else of the saved enabledModels
// patterns (a pattern matching nothing stays in the list, shown as unavailable); nil when neither
// is set (every model enabled).
func (m *model) enabledModelIDs(available []*provider.Model) []string {
	if scoped := m.sess.ScopedModels(); len(scoped) > 0 {
		return scopedIDs(scoped)
	}
	patterns := m.settings().EnabledModels
	if len(patterns) == 0 {
		return nil
	}
	scoped, _ := provider.ResolveModelScope(patterns, available)
	ids := scopedIDs(scoped)
	for _, p := range patterns {
		if one, _ := provider.ResolveModelScope([]string{p}, available); len(one) == 0 && !slices.Contains(ids, p) {
			ids = append(ids, p)
		}
	}
	return ids
}

func scopedIDs(scoped []provider.ScopedModel) []string {
	ids := make([]string, len(scoped))
	for i, s := range scoped {
		ids[i] = s.Model.Provider + "/" + s.Model.ID
	}
	return ids
}

// scopeChanged applies the picker's selection to the session: a selection of some (but not all)
// of the available models becomes the cycling scope; none or all clears it.
func (m *model) scopeChanged(msg picker.ScopeChanged) {
	available := m.sess.AvailableModels()
	if msg.All || len(msg.Enabled) == 0 {
		m.sess.SetScopedModels(nil)
		return
	}
	scoped, _ := provider.ResolveModelScope(msg.Enabled, available)
	if len(scoped) == 0 || len(scoped) == len(available) {
		scoped = nil
	}
	m.sess.SetScopedModels(scoped)
}

// scopeSaved writes the selection to settings.json.
func (m *model) scopeSaved(msg picker.ScopeSaved) {
	if m.opts.Settings == nil {
		m.addError("Settings are not available in this session")
		return
	}
	available := m.sess.AvailableModels()
	all := msg.All || len(msg.Enabled) == len(available) && !slices.ContainsFunc(available, func(mdl *provider.Model) bool {
		return !slices.Contains(msg.Enabled, mdl.Provider+"/"+mdl.ID)
	})
	var err error
	if all {
		err = m.opts.Settings.Unset("enabledModels")
	} else {
		err = m.opts.Settings.Set("enabledModels", msg.Enabled)
	}
	if err != nil {
		m.addWarning(err.Error())
		return
	}
	m.addStatus("Model selection saved to settings")
}
