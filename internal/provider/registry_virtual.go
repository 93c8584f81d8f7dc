package provider

import (
	"context"
	"slices"
)

// APIVirtual is the API of a virtual model (pi 1.6's "pi-virtual"): a catalog entry an extension
// registers with pi.registerVirtualModel, whose every request is routed to a physical model before
// it is sent. No provider speaks it; a request for it that was not routed fails.
const APIVirtual = "pi-virtual"

// VirtualModel is the catalog entry of a virtual model from its definition: thinkingLevels (pi's
// default ["off"]), the limits shown before the first answer, and the input types (default text and
// images).
func VirtualModel(provider, id, name string, levels []ThinkingLevel, contextWindow, maxTokens int, input []string) Model {
	if len(levels) == 0 {
		levels = []ThinkingLevel{ThinkingOff}
	}
	if len(input) == 0 {
		input = []string{"text", "image"}
	}
	if name == "" {
		name = id
	}
	m := Model{ID: id, Name: name, API: APIVirtual, Provider: provider, Input: slices.Clone(input),
		ContextWindow: contextWindow, MaxTokens: maxTokens}
	// A reasoning model whose map marks every level it does not offer as unsupported: the levels
	// offered are exactly the definition's (SupportedThinkingLevels).
	if len(levels) > 1 || levels[0] != ThinkingOff {
		m.Reasoning = true
		m.ThinkingLevelMap = map[ThinkingLevel]*string{}
		for _, l := range ThinkingLevels {
			if slices.Contains(levels, l) {
				m.ThinkingLevelMap[l] = Ptr(string(l))
			} else {
				m.ThinkingLevelMap[l] = nil
			}
		}
	}
	return m
}

// IsVirtual reports whether m is a virtual model.
func IsVirtual(m *Model) bool { return m != nil && m.API == APIVirtual }

// RegisterVirtualModel adds m (API set to APIVirtual), replacing an earlier one with the same
// provider and id. It hides a physical model of that provider and id, as pi's does.
func (r *Registry) RegisterVirtualModel(m Model) {
	m.API = APIVirtual
	c := m.Clone()
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := r.virtualIndex(m.Provider, m.ID); i >= 0 {
		r.virtual[i] = c
	} else {
		r.virtual = append(r.virtual, c)
	}
	r.recompose()
}

// UnregisterVirtualModel removes a virtual model; false when there was none.
func (r *Registry) UnregisterVirtualModel(provider, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.virtualIndex(provider, id)
	if i < 0 {
		return false
	}
	r.virtual = slices.Delete(r.virtual, i, i+1)
	r.recompose()
	return true
}

func (r *Registry) virtualIndex(provider, id string) int {
	return slices.IndexFunc(r.virtual, func(m *Model) bool { return m.Provider == provider && m.ID == id })
}

// VirtualOnly reports whether provider lists virtual models and no physical one: its models need no
// credentials (pi's rule: a virtual model under a provider id no provider uses is always available).
func (r *Registry) VirtualOnly(provider string) bool {
	virtual := false
	for _, m := range r.models() {
		if m.Provider != provider {
			continue
		}
		if m.API != APIVirtual {
			return false
		}
		virtual = true
	}
	return virtual
}

// withVirtualModels lists the virtual models with the physical ones: one with a physical model's
// provider and id takes its place, the others follow the last model of their provider, or the end.
func withVirtualModels(models []*Model, virtual []*Model) *[]*Model {
	if len(virtual) == 0 {
		return &models
	}
	for _, v := range virtual {
		if i := slices.IndexFunc(models, func(m *Model) bool { return m.Provider == v.Provider && m.ID == v.ID }); i >= 0 {
			models[i] = v
			continue
		}
		last := -1
		for i, m := range models {
			if m.Provider == v.Provider {
				last = i
			}
		}
		if last < 0 {
			models = append(models, v)
		} else {
			models = slices.Insert(models, last+1, v)
		}
	}
	return &models
}

// directRequestKey marks a context whose request is made outside the agent loop.
type directRequestKey struct{}

// WithDirectRequest marks ctx's request as made outside the agent loop (a compaction or branch
// summary): a virtual model routes it with reason "direct", without router state (pi 1.6).
func WithDirectRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, directRequestKey{}, true)
}

// IsDirectRequest reports whether ctx was marked by WithDirectRequest.
func IsDirectRequest(ctx context.Context) bool {
	direct, _ := ctx.Value(directRequestKey{}).(bool)
	return direct
}
