package harness

import "github.com/pi-go/pi-go/internal/provider"

// limitsModel is the model whose limits (context window, output limit) count for an answer: the
// selected model m, or, when m is a virtual model, the physical model that gave answer, as pi 1.6
// does (a virtual model's own limits only count before its first answer). answer nil: the latest
// answer of the transcript.
func (s *Session) limitsModel(m *provider.Model, answer *provider.AssistantMessage) *provider.Model {
	if !provider.IsVirtual(m) || s.opts.Models == nil {
		return m
	}
	if answer == nil {
		answer = s.lastAssistantMessage()
	}
	if answer == nil || answer.API == provider.APIVirtual {
		return m
	}
	if phys := s.opts.Models.Find(answer.Provider, answer.Model); phys != nil && !provider.IsVirtual(phys) {
		return phys
	}
	return m
}
