package provider

// providerAPI names the models one registered stream function serves: those of one provider that
// speak one API.
type providerAPI struct{ provider, api string }

// HandleProviderAPI makes p stream the requests to models of the named provider that speak api (an
// extension's provider with its own stream function: pi uses it for exactly those models). Unlike
// HandleAPI and HandleProvider it may be called while requests stream; p replaces an earlier one.
func (r *Router) HandleProviderAPI(provider, api string, p Provider) {
	r.streamsMu.Lock()
	defer r.streamsMu.Unlock()
	if r.streams == nil {
		r.streams = map[providerAPI]Provider{}
	}
	r.streams[providerAPI{provider, api}] = p
}

// RemoveProviderStreams drops every stream function registered for provider with HandleProviderAPI.
func (r *Router) RemoveProviderStreams(provider string) {
	r.streamsMu.Lock()
	defer r.streamsMu.Unlock()
	for k := range r.streams {
		if k.provider == provider {
			delete(r.streams, k)
		}
	}
}

func (r *Router) stream(provider, api string) Provider {
	r.streamsMu.RLock()
	defer r.streamsMu.RUnlock()
	return r.streams[providerAPI{provider, api}]
}
