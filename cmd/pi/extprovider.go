package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// extensionProviders applies the providers extensions register (pi.registerProvider) to pi-go's
// models, keys and router, and removes them again (pi.unregisterProvider). A provider whose config
// speaks an API pi-go has a package for is served by that package; one with its own streamSimple
// streams through the extension for the models of its api.
type extensionProviders struct {
	a *app
	// mu serialises the changes; configs are the merged registrations, by provider name.
	mu      sync.Mutex
	configs map[string]json.RawMessage
	// logins are the providers whose authentication came with their registration (login.go).
	logins map[string]loginProvider
	// bound is the host's session once it exists: it takes a re-registered provider's entry of its
	// current model.
	bound *atomic.Pointer[harness.Session]
}

// streamRouter is the router of every request, made on first use: extensions add their providers'
// stream functions to it while pi-go runs.
func (a *app) streamRouter() *provider.Router {
	if a.router == nil {
		a.router = newRouter()
	}
	return a.router
}

// newExtensionProviders is made with the extension host, before it can start: the router it changes
// exists from then on.
func (a *app) newExtensionProviders(bound *atomic.Pointer[harness.Session]) *extensionProviders {
	a.streamRouter()
	return &extensionProviders{a: a, bound: bound}
}

// apply is the extension host's OnProvider. It runs on the host's reader, after the model
// selection read a.registry (the host starts after it, or from waitForExtensionModels).
func (x *extensionProviders) apply(c extensions.ProviderChange) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	a := x.a
	if c.Config == nil {
		if _, ok := x.configs[c.Name]; !ok {
			return nil
		}
		delete(x.configs, c.Name)
		delete(x.logins, c.Name)
		a.registry.UnregisterProvider(c.Name)
		a.streamRouter().RemoveProviderStreams(c.Name)
		a.auth.RemoveExtensionProvider(c.Name)
		a.auth.SetProviderAuth(c.Name, nil)
		return nil
	}
	merged, err := config.MergeProviderConfig(x.configs[c.Name], c.Config)
	if err != nil {
		return fmt.Errorf("provider %s: %w", c.Name, err)
	}
	ep, err := config.ParseExtensionProvider(c.Name, merged)
	if err != nil {
		return err
	}
	var streamAPIs []string
	switch {
	case c.Native:
		// A pi-ai Provider object streams every model it has.
		streamAPIs = ep.ChatModelAPIs()
	case c.StreamSimple:
		if ep.API == "" {
			return fmt.Errorf(`Provider %s: "api" is required when registering streamSimple.`, c.Name)
		}
		streamAPIs = []string{ep.API}
	}
	models, replaces, skipped := ep.ChatModels(streamAPIs...)
	if x.configs == nil {
		x.configs = map[string]json.RawMessage{}
		x.logins = map[string]loginProvider{}
	}
	x.configs[c.Name] = merged
	// The key before the models: whoever sees a model can use it.
	a.auth.SetExtensionProvider(ep)
	if c.Auth != nil {
		x.logins[c.Name] = loginProvider{id: c.Name, name: c.Auth.OAuthName, auth: c.Auth}
		a.auth.SetProviderAuth(c.Name, extensionAuth{c.Auth})
	} else {
		delete(x.logins, c.Name)
		a.auth.SetProviderAuth(c.Name, nil)
	}
	r := a.streamRouter()
	r.RemoveProviderStreams(c.Name)
	if c.Stream != nil {
		for _, api := range streamAPIs {
			r.HandleProviderAPI(c.Name, api, c.Stream)
		}
	}
	reg := provider.RegisteredProvider{Name: c.Name, BaseURL: ep.BaseURL}
	if replaces {
		reg.Models = models
	}
	a.registry.RegisterProvider(reg)
	if sess := x.bound.Load(); sess != nil {
		sess.RefreshModel()
	}
	if len(skipped) > 0 {
		return fmt.Errorf("provider %s: left out %s: pi-go speaks %s, and the provider has no streamSimple for it",
			c.Name, strings.Join(skipped, ", "), strings.Join(provider.SpokenAPIs, ", "))
	}
	return nil
}

// waitForExtensionModels starts the extensions now (not after the first frame) and waits until
// they have registered, so their providers count for the model selection. Only a selection that
// needs a model the extensions may provide calls it; false when there are no extensions or they
// did not finish loading.
func (a *app) waitForExtensionModels(ctx context.Context) bool {
	if a.ext == nil {
		return false
	}
	a.ext.host.Start()
	return a.ext.host.Wait(ctx) == nil
}

// extensionModelError is the error for a model the extensions were waited for and did not provide.
func (a *app) extensionModelError(err error) error {
	if a.ext == nil {
		return err
	}
	return fmt.Errorf("%w (no loaded extension registered it; extension load errors are shown above)", err)
}

// resolveCLIModelWithExtensions resolves --model, waiting for the extensions' providers when the
// model is not one pi-go knows cleanly (an error, a synthetic id or a fuzzy match): the extensions
// may register it.
func (a *app) resolveCLIModelWithExtensions(ctx context.Context, prov, model string) (provider.CLIModel, error) {
	res, err := a.registry.ResolveCLIModel(prov, model)
	if err == nil && !res.Synthetic && res.Warning == "" {
		return res, nil
	}
	if !a.waitForExtensionModels(ctx) {
		return res, err
	}
	res, err = a.registry.ResolveCLIModel(prov, model)
	if err != nil {
		return res, a.extensionModelError(err)
	}
	return res, nil
}

// awaitExtensionDefault waits for the extensions when the settings' default model is not known yet
// and nothing on the command line chose one: an extension may provide it.
func (a *app) awaitExtensionDefault(ctx context.Context) {
	s := a.settings.Settings()
	if s.DefaultProvider == "" || s.DefaultModel == "" || a.registry.Find(s.DefaultProvider, s.DefaultModel) != nil {
		return
	}
	if a.waitForExtensionModels(ctx) && a.registry.Find(s.DefaultProvider, s.DefaultModel) == nil {
		a.warn("Default model %s/%s from settings was not found, nor registered by an extension", s.DefaultProvider, s.DefaultModel)
	}
}

// awaitExtensionSessionModel waits for the extensions when a resumed session continues with a model
// pi-go does not know yet: an extension may provide it, and the session restores it.
func (a *app) awaitExtensionSessionModel(ctx context.Context, store *session.Manager) {
	if ref := store.CurrentModel(); ref != nil && a.registry.Find(ref.Provider, ref.ModelID) == nil {
		a.waitForExtensionModels(ctx)
	}
}

// scopeWithExtensions resolves --models / enabledModels, waiting for the extensions when a pattern
// matches nothing yet.
func (a *app) scopeWithExtensions(ctx context.Context, patterns []string) ([]provider.ScopedModel, []string) {
	scoped, warnings := provider.ResolveModelScope(patterns, a.registry.Available(a.hasAuth))
	if len(warnings) == 0 || !a.waitForExtensionModels(ctx) {
		return scoped, warnings
	}
	return provider.ResolveModelScope(patterns, a.registry.Available(a.hasAuth))
}

// loadExtensionModels loads the extensions for --list-models (pi lists what they register), with an
// in-memory session; without extensions nothing is started.
func (a *app) loadExtensionModels(ctx context.Context) {
	store := session.InMemory(a.cwd)
	if err := a.resolveProjectTrust(ctx, false, store); err != nil {
		a.warn("%v", err)
	}
	a.ext = a.newExtensionHost(store)
	if a.ext == nil {
		return
	}
	a.waitForExtensionModels(ctx)
	a.ext.close()
}
