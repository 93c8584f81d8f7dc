package session

import "github.com/pi-go/pi-go/internal/provider"

// CurrentModel is the model the session continues with, as BuildContext finds it (the last model
// change or assistant answer on the leaf's path), without building the context; nil when none.
func (m *Manager) CurrentModel() *ModelRef {
	path := m.Path("")
	for i := len(path) - 1; i >= 0; i-- {
		switch e := path[i]; {
		case e.Type == TypeModelChange:
			return &ModelRef{Provider: e.Provider, ModelID: e.ModelID}
		case e.Type == TypeMessage && e.Role == provider.RoleAssistant:
			return &ModelRef{Provider: e.asstProvider, ModelID: e.asstModel}
		}
	}
	return nil
}
