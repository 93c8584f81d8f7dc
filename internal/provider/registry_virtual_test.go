package provider

import (
	"slices"
	"testing"
)

func TestRegistryVirtualModels(t *testing.T) {
	r := NewRegistry([]Model{
		{ID: "a1", Provider: "a", API: APIOpenAICompletions},
		{ID: "a2", Provider: "a", API: APIOpenAICompletions},
		{ID: "b1", Provider: "b", API: APIOpenAICompletions},
	}, nil)
	ids := func() []string {
		var out []string
		for _, m := range r.All() {
			out = append(out, m.Provider+"/"+m.ID)
		}
		return out
	}
	r.RegisterVirtualModel(VirtualModel("router", "auto", "Auto", []ThinkingLevel{ThinkingLow, ThinkingHigh}, 0, 0, nil))
	r.RegisterVirtualModel(VirtualModel("a", "smart", "", nil, 1000, 0, nil))
	r.RegisterVirtualModel(VirtualModel("b", "b1", "B hidden", nil, 0, 0, nil))
	if got, want := ids(), []string{"a/a1", "a/a2", "a/smart", "b/b1", "router/auto"}; !slices.Equal(got, want) {
		t.Fatalf("models %v, want %v", got, want)
	}
	if m := r.Find("b", "b1"); !IsVirtual(m) || m.Name != "B hidden" {
		t.Errorf("b/b1 is not hidden by the virtual model: %+v", m)
	}
	auto := r.Find("router", "auto")
	if got := SupportedThinkingLevels(auto); !slices.Equal(got, []ThinkingLevel{ThinkingLow, ThinkingHigh}) {
		t.Errorf("levels %v", got)
	}
	if got := SupportedThinkingLevels(r.Find("a", "smart")); !slices.Equal(got, []ThinkingLevel{ThinkingOff}) {
		t.Errorf("default levels %v", got)
	}
	if !slices.Equal(auto.Input, []string{"text", "image"}) {
		t.Errorf("input %v", auto.Input)
	}
	if !r.VirtualOnly("router") || r.VirtualOnly("a") || r.VirtualOnly("nobody") {
		t.Error("VirtualOnly")
	}
	// Registering again replaces; unregistering restores what it hid; a provider's re-registration
	// keeps the virtual models.
	r.RegisterVirtualModel(VirtualModel("router", "auto", "Auto 2", nil, 0, 0, nil))
	if r.Find("router", "auto").Name != "Auto 2" || len(r.All()) != 5 {
		t.Errorf("replace: %v", ids())
	}
	if !r.UnregisterVirtualModel("b", "b1") || r.UnregisterVirtualModel("b", "b1") {
		t.Error("unregister result")
	}
	if m := r.Find("b", "b1"); IsVirtual(m) {
		t.Error("b/b1 not restored")
	}
	r.RegisterProvider(RegisteredProvider{Name: "a", Models: []Model{{ID: "a9", API: APIOpenAICompletions}}})
	if got, want := ids(), []string{"a/a9", "a/smart", "b/b1", "router/auto"}; !slices.Equal(got, want) {
		t.Fatalf("after registerProvider %v, want %v", got, want)
	}
}
