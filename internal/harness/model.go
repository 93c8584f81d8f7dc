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

// SetModel switches the model: it is recorded in the session and saved as the default in
// settings.json, and the thinking level is re-clamped to what the model supports.
func (s *Session) SetModel(m *provider.Model) error {
	if m == nil {
		return fmt.Errorf("no model given")
	}
	if !s.opts.HasAuth(m.Provider) {
		return fmt.Errorf("No API key for %s/%s", m.Provider, m.ID)
	}
	s.applyModel(m, s.thinkingForModelSwitch(""))
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
	return &CycleResult{Model: next, ThinkingLevel: s.ThinkingLevel()}
}

func (s *Session) applyModel(m *provider.Model, level provider.ThinkingLevel) {
	s.agent.SetModel(m)
	s.appendEntry(s.Store().AppendModelChange(m.Provider, m.ID))
	s.warn(s.opts.Settings.Set("defaultProvider", m.Provider))
	s.warn(s.opts.Settings.Set("defaultModel", m.ID))
	s.SetThinkingLevel(level)
}

// thinkingForModelSwitch is pi's rule: an explicit level wins; from a model without reasoning the saved
// preference comes back; otherwise the current level carries over.
func (s *Session) thinkingForModelSwitch(explicit provider.ThinkingLevel) provider.ThinkingLevel {
	if explicit != "" {
		return explicit
	}
	if cur := s.Model(); cur == nil || !cur.Reasoning {
		return s.settingsThinkingLevel()
	}
	return s.ThinkingLevel()
}

// SetThinkingLevel sets the level, clamped to the model. A change is recorded in the session, saved in
// settings (unless it is the forced "off" of a model without reasoning) and announced.
func (s *Session) SetThinkingLevel(level provider.ThinkingLevel) {
	m := s.Model()
	effective := provider.ThinkingOff
	if m != nil {
		effective = provider.ClampThinkingLevel(m, level)
	}
	prev := s.ThinkingLevel()
	s.agent.SetThinkingLevel(effective)
	if effective == prev {
		return
	}
	s.appendEntry(s.Store().AppendThinkingLevelChange(effective))
	if (m != nil && m.Reasoning) || effective != provider.ThinkingOff {
		s.warn(s.opts.Settings.Set("defaultThinkingLevel", string(effective)))
	}
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
