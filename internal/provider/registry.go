package provider

import (
	"sync"
	"sync/atomic"
)

// ModelOverride changes some fields of a built-in model (models.json "modelOverrides"): each set
// field replaces the model's, cost field by field, while compat and thinkingLevelMap are merged into
// the model's own.
type ModelOverride struct {
	Name             *string                   `json:"name,omitempty"`
	Reasoning        *bool                     `json:"reasoning,omitempty"`
	ThinkingLevelMap map[ThinkingLevel]*string `json:"thinkingLevelMap,omitempty"`
	Input            []string                  `json:"input,omitempty"`
	Cost             *CostOverride             `json:"cost,omitempty"`
	ContextWindow    *int                      `json:"contextWindow,omitempty"`
	MaxTokens        *int                      `json:"maxTokens,omitempty"`
	Compat           *Compat                   `json:"compat,omitempty"`
}

// CostOverride is a partial ModelCost.
type CostOverride struct {
	Input      *float64 `json:"input,omitempty"`
	Output     *float64 `json:"output,omitempty"`
	CacheRead  *float64 `json:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty"`
}

// ProviderOverride re-routes every built-in model of one provider (a models.json provider entry with
// a built-in name): a non-empty BaseURL replaces theirs, Compat is merged into theirs.
type ProviderOverride struct {
	BaseURL string
	Compat  *Compat
}

// Customization is what models.json changes in the built-in list.
type Customization struct {
	// Providers re-route built-in providers, by provider name.
	Providers map[string]ProviderOverride
	// ModelOverrides patch built-in models, by provider name then model id.
	ModelOverrides map[string]map[string]ModelOverride
	// Models are custom models, complete: each replaces the model with the same provider and id,
	// or is appended after the built-ins in this order.
	Models []Model
}

// Registry is the list of models pi-go knows: the built-ins with models.json applied, then custom
// models, then the providers extensions register at run time (registry_providers.go). Readers see
// one consistent list (a snapshot replaced whole on each change), so it may be read from any
// goroutine while extensions change it. The *Model values it hands out are shared: treat them as
// read-only and Clone one before changing it.
type Registry struct {
	// base is the list built by NewRegistry; never changed.
	base []*Model
	// snap is what readers see: base with the registered providers applied.
	snap atomic.Pointer[[]*Model]
	// mu serialises the writers of registered and snap.
	mu         sync.Mutex
	registered []RegisteredProvider
	// virtual are the virtual models extensions register (registry_virtual.go), in order.
	virtual []*Model
}

// NewRegistry builds a registry from built-in models and an optional customization, following pi's
// order: provider overrides and model overrides on the built-ins, then custom models upserted by
// provider and id.
func NewRegistry(builtin []Model, custom *Customization) *Registry {
	if custom == nil {
		custom = &Customization{}
	}
	models := make([]*Model, 0, len(builtin)+len(custom.Models))
	for i := range builtin {
		m := builtin[i].Clone()
		if po, ok := custom.Providers[m.Provider]; ok {
			if po.BaseURL != "" {
				m.BaseURL = po.BaseURL
			}
			m.Compat = mergeCompat(m.Compat, po.Compat)
		}
		if mo, ok := custom.ModelOverrides[m.Provider][m.ID]; ok {
			applyModelOverride(m, &mo)
		}
		models = append(models, m)
	}
	// upsert by provider and id through an index: a scan per model made this quadratic
	type key struct{ provider, id string }
	at := make(map[key]int, len(models)+len(custom.Models))
	for i, m := range models {
		k := key{m.Provider, m.ID}
		if _, seen := at[k]; !seen {
			at[k] = i // the first of a duplicate pair is the one replaced, as the scan found it
		}
	}
	for i := range custom.Models {
		m := custom.Models[i].Clone()
		k := key{m.Provider, m.ID}
		if j, ok := at[k]; ok {
			models[j] = m
			continue
		}
		at[k] = len(models)
		models = append(models, m)
	}
	r := &Registry{base: models}
	r.snap.Store(&models)
	return r
}

// models is the current list; callers must not change it.
func (r *Registry) models() []*Model { return *r.snap.Load() }

// mergeCompat is pi's compat merge: nil override keeps base as it is.
func mergeCompat(base, over *Compat) *Compat {
	if over == nil {
		return base
	}
	return base.Merge(over)
}

func applyModelOverride(m *Model, o *ModelOverride) {
	if o.Name != nil {
		m.Name = *o.Name
	}
	if o.Reasoning != nil {
		m.Reasoning = *o.Reasoning
	}
	if o.ThinkingLevelMap != nil {
		merged := make(map[ThinkingLevel]*string, len(m.ThinkingLevelMap)+len(o.ThinkingLevelMap))
		for k, v := range m.ThinkingLevelMap {
			merged[k] = v
		}
		for k, v := range o.ThinkingLevelMap {
			merged[k] = v
		}
		m.ThinkingLevelMap = merged
	}
	if o.Input != nil {
		m.Input = append([]string(nil), o.Input...)
	}
	if o.ContextWindow != nil {
		m.ContextWindow = *o.ContextWindow
	}
	if o.MaxTokens != nil {
		m.MaxTokens = *o.MaxTokens
	}
	if c := o.Cost; c != nil {
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&m.Cost.Input, c.Input)
		set(&m.Cost.Output, c.Output)
		set(&m.Cost.CacheRead, c.CacheRead)
		set(&m.Cost.CacheWrite, c.CacheWrite)
	}
	m.Compat = mergeCompat(m.Compat, o.Compat)
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	if m.Input != nil {
		c.Input = append([]string(nil), m.Input...)
	}
	if m.ThinkingLevelMap != nil {
		c.ThinkingLevelMap = make(map[ThinkingLevel]*string, len(m.ThinkingLevelMap))
		for k, v := range m.ThinkingLevelMap {
			if v != nil {
				v = Ptr(*v)
			}
			c.ThinkingLevelMap[k] = v
		}
	}
	if m.Headers != nil {
		c.Headers = make(map[string]string, len(m.Headers))
		for k, v := range m.Headers {
			c.Headers[k] = v
		}
	}
	if m.Compat != nil {
		c.Compat = m.Compat.Merge(nil)
	}
	return &c
}

// SameModel reports whether a and b are the same model (same provider and id); false if either is nil.
func SameModel(a, b *Model) bool {
	return a != nil && b != nil && a.Provider == b.Provider && a.ID == b.ID
}

// All returns every model, built-ins first, in pi's order.
func (r *Registry) All() []*Model {
	return append([]*Model(nil), r.models()...)
}

// Find returns the model with exactly this provider and id, or nil.
func (r *Registry) Find(provider, id string) *Model {
	for _, m := range r.models() {
		if m.Provider == provider && m.ID == id {
			return m
		}
	}
	return nil
}

// Available returns the models whose provider has auth configured, in registry order (the order of
// get_available_models, /model and Ctrl+P cycling). hasAuth must not run commands or block: it is
// called once per provider.
func (r *Registry) Available(hasAuth func(provider string) bool) []*Model {
	known := map[string]bool{}
	var out []*Model
	for _, m := range r.models() {
		ok, seen := known[m.Provider]
		if !seen {
			ok = hasAuth(m.Provider)
			known[m.Provider] = ok
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// Providers lists the distinct provider names, in registry order.
func (r *Registry) Providers() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range r.models() {
		if !seen[m.Provider] {
			seen[m.Provider] = true
			out = append(out, m.Provider)
		}
	}
	return out
}
