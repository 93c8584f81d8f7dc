package harness

import (
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
)

// CycleResult is the outcome of CycleModel.
type CycleResult struct {
	Model         *provider.Model
	ThinkingLevel provider.ThinkingLevel
	IsScoped      bool
}

// AvailableModels lists the models whose provider has credentials.
func (s *Session) AvailableModels() []*provider.Model {
	if s.opts.Models == nil {
		return nil
	}
	return s.opts.Models.Available(s.opts.HasAuth)
}

// SetModel switches the model: it is recorded in the session (a model_change entry) and the thinking
// level is chosen for it (thinkingForModelSwitch) and clamped to what it supports. As in pi 1.6,
// settings.json is left alone: switching is not saving a default.
func (s *Session) SetModel(m *provider.Model) error {
	if m == nil {
		return fmt.Errorf("no model given")
	}
	if !s.opts.HasAuth(m.Provider) {
		return fmt.Errorf("No API key for %s/%s", m.Provider, m.ID)
	}
	prev := s.Model()
	s.applyModel(m, s.thinkingForModelSwitch(""))
	s.modelSelected(prev, "set")
	return nil
}

// CycleModel moves to the next (or previous) scoped model, or available model when no scope is set.
// It returns nil when there is nothing to cycle to.
func (s *Session) CycleModel(backward bool) *CycleResult {
	cur := s.Model()
	if scoped := s.ScopedModels(); len(scoped) > 0 {
		next, ok := provider.CycleScopedModel(scoped, cur, backward, s.opts.HasAuth)
		if !ok {
			return nil
		}
		s.applyModel(next.Model, s.thinkingForModelSwitch(next.Thinking))
		s.modelSelected(cur, "cycle")
		return &CycleResult{Model: next.Model, ThinkingLevel: s.ThinkingLevel(), IsScoped: true}
	}
	available := s.AvailableModels()
	if len(available) <= 1 {
		return nil
	}
	next := provider.CycleModel(available, cur, backward)
	if next == nil {
		return nil
	}
	s.applyModel(next, s.thinkingForModelSwitch(""))
	s.modelSelected(cur, "cycle")
	return &CycleResult{Model: next, ThinkingLevel: s.ThinkingLevel()}
}

func (s *Session) applyModel(m *provider.Model, level provider.ThinkingLevel) {
	s.agent.SetModel(m)
	s.appendEntry(s.Store().AppendModelChange(m.Provider, m.ID))
	s.SetThinkingLevel(level)
}

// thinkingForModelSwitch is pi 1.6's rule for the level a model switch asks for (before clamping): an
// explicit level (a scoped model's) wins, then the saved default of settings.json, then the current
// level. So switching from a model without reasoning (level off) to one with it stays off unless a
// default is saved.
func (s *Session) thinkingForModelSwitch(explicit provider.ThinkingLevel) provider.ThinkingLevel {
	if explicit != "" {
		return explicit
	}
	if saved := s.opts.Settings.Settings().DefaultThinkingLevel; provider.IsThinkingLevel(saved) {
		return provider.ThinkingLevel(saved)
	}
	return s.ThinkingLevel()
}

// SetThinkingLevel sets the level, clamped to what the model supports (with no model every level is
// kept, as pi does). A change is recorded in the session (a thinking_level_change entry) and announced
// (thinking_level_changed); as in pi 1.6, settings.json is left alone.
func (s *Session) SetThinkingLevel(level provider.ThinkingLevel) {
	effective := level
	if m := s.Model(); m != nil {
		effective = provider.ClampThinkingLevel(m, level)
	} else if !provider.IsThinkingLevel(string(level)) {
		effective = provider.ThinkingOff
	}
	prev := s.ThinkingLevel()
	s.agent.SetThinkingLevel(effective)
	if effective == prev {
		return
	}
	s.appendEntry(s.Store().AppendThinkingLevelChange(effective))
	s.emit(Event{Type: EventThinkingLevelChanged, Level: effective})
}

// CycleThinkingLevel moves to the next level the model supports; ok is false for models without
// reasoning.
func (s *Session) CycleThinkingLevel() (provider.ThinkingLevel, bool) {
	m := s.Model()
	if m == nil || !m.Reasoning {
		return "", false
	}
	next, ok := provider.NextThinkingLevel(m, s.ThinkingLevel())
	if !ok {
		return "", false
	}
	s.SetThinkingLevel(next)
	return s.ThinkingLevel(), true
}

// AvailableThinkingLevels lists the levels of the current model.
func (s *Session) AvailableThinkingLevels() []provider.ThinkingLevel {
	m := s.Model()
	if m == nil {
		return provider.ThinkingLevels
	}
	return provider.SupportedThinkingLevels(m)
}
