package provider

import "slices"

// RegisteredProvider is a provider added to a Registry while pi-go runs: an extension's
// pi.registerProvider(name, config), as pi's model registry applies it.
type RegisteredProvider struct {
	Name string
	// Models, when non-nil, replace every model of the provider (built-in and models.json ones
	// alike); each gets Provider set to Name.
	Models []Model
	// BaseURL, when Models is nil, re-routes the provider's existing models (pi's "override the URL
	// of a built-in provider").
	BaseURL string
}

// RegisterProvider adds p, replacing an earlier registration of the same name (the caller merges a
// re-registration's fields, as pi does). Readers see the change on their next call.
func (r *Registry) RegisterProvider(p RegisteredProvider) {
	p.Models = slices.Clone(p.Models)
	for i := range p.Models {
		p.Models[i].Provider = p.Name
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := r.registeredIndex(p.Name); i >= 0 {
		r.registered[i] = p
	} else {
		r.registered = append(r.registered, p)
	}
	r.recompose()
}

// UnregisterProvider removes the registration of name and restores the models it replaced or
// re-routed; false when name was not registered.
func (r *Registry) UnregisterProvider(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.registeredIndex(name)
	if i < 0 {
		return false
	}
	r.registered = slices.Delete(r.registered, i, i+1)
	r.recompose()
	return true
}

// IsRegistered reports whether name is a provider added with RegisterProvider.
func (r *Registry) IsRegistered(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.registeredIndex(name) >= 0
}

func (r *Registry) registeredIndex(name string) int {
	return slices.IndexFunc(r.registered, func(p RegisteredProvider) bool { return p.Name == name })
}

// recompose builds the readers' list from base and the registrations (r.mu held): a provider whose
// models are replaced keeps its place in the list; providers new to the list follow the others, in
// the order they were first registered.
func (r *Registry) recompose() {
	byName := make(map[string]*RegisteredProvider, len(r.registered))
	for i := range r.registered {
		byName[r.registered[i].Name] = &r.registered[i]
	}
	placed := map[string]bool{}
	place := func(out []*Model, p *RegisteredProvider) []*Model {
		placed[p.Name] = true
		for i := range p.Models {
			out = append(out, p.Models[i].Clone())
		}
		return out
	}
	out := make([]*Model, 0, len(r.base))
	for _, m := range r.base {
		p := byName[m.Provider]
		switch {
		case p == nil:
			out = append(out, m)
		case p.Models != nil:
			if !placed[p.Name] {
				out = place(out, p)
			}
		case p.BaseURL != "":
			c := m.Clone()
			c.BaseURL = p.BaseURL
			out = append(out, c)
		default:
			out = append(out, m)
		}
	}
	for i := range r.registered {
		if p := &r.registered[i]; !placed[p.Name] && p.Models != nil {
			out = place(out, p)
		}
	}
	r.snap.Store(withVirtualModels(out, r.virtual))
}
