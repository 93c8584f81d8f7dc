package harness

import (
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// A virtual selection takes its limits from the physical model that answered; before any answer,
// or for a physical selection, the selected model's own.
func TestLimitsModelOfAVirtualSelection(t *testing.T) {
	reg := provider.NewRegistry([]provider.Model{{ID: "big", Provider: "p", API: provider.APIOpenAICompletions, ContextWindow: 200000}}, nil)
	reg.RegisterVirtualModel(provider.VirtualModel("router", "auto", "", nil, 1000, 0, nil))
	s := &Session{opts: Options{Models: reg}}
	virtual, big := reg.Find("router", "auto"), reg.Find("p", "big")
	answer := &provider.AssistantMessage{Provider: "p", Model: "big", API: provider.APIOpenAICompletions}
	if got := s.limitsModel(virtual, answer); got != big {
		t.Errorf("virtual with an answer: %+v", got)
	}
	if got := s.limitsModel(big, &provider.AssistantMessage{Provider: "x", Model: "y"}); got != big {
		t.Errorf("physical selection: %+v", got)
	}
	if got := s.limitsModel(virtual, &provider.AssistantMessage{Provider: "gone", Model: "model"}); got != virtual {
		t.Errorf("unknown answering model: %+v", got)
	}
}
