package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/tui"
)

// loginProvider is a provider registered with its own authentication.
type loginProvider struct {
	id, name string // name: the OAuth login's display name ("" without an OAuth login)
	auth     *extensions.ProviderAuth
}

// extensionAuth is an extension provider's authentication as config.Auth asks it.
type extensionAuth struct{ p *extensions.ProviderAuth }

func (e extensionAuth) OAuth() bool      { return e.p.OAuthName != "" }
func (e extensionAuth) Native() bool     { return e.p.IsNative }
func (e extensionAuth) Configured() bool { return e.p.APIKeyConfigured }

func (e extensionAuth) Refresh(ctx context.Context, cred json.RawMessage) (json.RawMessage, error) {
	return e.p.Refresh(ctx, cred)
}

func (e extensionAuth) Resolve(ctx context.Context, cred json.RawMessage) (config.ResolvedAuth, bool, error) {
	key, headers, ok, err := e.p.Resolve(ctx, cred)
	return config.ResolvedAuth{APIKey: config.NewAPIKey(key), Headers: headers}, ok, err
}

// logins is what /login and /logout reach: the OAuth logins extensions' providers registered, and
// auth.json's stored credentials.
type logins struct{ a *app }

// tuiLogins is the TUI's Logins (nil-safe for a run without extensions: /logout still works).
func (a *app) tuiLogins() tui.Logins { return logins{a: a} }

// Loading: the extensions start after the first frame, and their logins are known once they have
// registered.
func (l logins) Loading() bool { return l.a.ext != nil && !l.a.ext.host.Started() }

func (l logins) WaitLoaded(ctx context.Context) {
	if l.a.ext != nil {
		l.a.ext.ready(ctx) // the registered providers are applied by then
	}
}

func (l logins) Providers() []tui.LoginProvider {
	var out []tui.LoginProvider
	if l.a.ext == nil {
		return nil
	}
	x := l.a.ext.providers
	x.mu.Lock()
	for _, p := range x.logins {
		if p.name != "" {
			out = append(out, tui.LoginProvider{ID: p.id, Name: p.name, Type: "oauth"})
		}
	}
	x.mu.Unlock()
	slices.SortFunc(out, func(a, b tui.LoginProvider) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (l logins) Stored() ([]tui.LoginProvider, error) {
	store := l.a.auth.Store()
	if store == nil {
		return nil, nil
	}
	creds, err := store.List()
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, p := range l.Providers() {
		names[p.ID] = p.Name
	}
	out := make([]tui.LoginProvider, 0, len(creds))
	for _, c := range creds {
		name := names[c.Provider]
		if name == "" {
			name = c.Provider
		}
		out = append(out, tui.LoginProvider{ID: c.Provider, Name: name, Type: c.Type})
	}
	return out, nil
}

func (l logins) Login(ctx context.Context, id string, ui extensions.LoginUI) (string, error) {
	var p loginProvider
	if l.a.ext != nil {
		x := l.a.ext.providers
		x.mu.Lock()
		p = x.logins[id]
		x.mu.Unlock()
	}
	if p.auth == nil || p.name == "" {
		return "", fmt.Errorf("no OAuth login for provider %q", id)
	}
	cred, err := p.auth.Login(ctx, ui)
	if err != nil {
		return "", err
	}
	store := l.a.auth.Store()
	if _, err := store.Modify(context.WithoutCancel(ctx), id, func(json.RawMessage) (json.RawMessage, error) { return cred, nil }); err != nil {
		return "", err
	}
	return store.Path(), nil
}

func (l logins) Logout(ctx context.Context, id string) (bool, error) {
	store := l.a.auth.Store()
	if store == nil {
		return false, nil
	}
	removed, err := store.Delete(ctx, id)
	if removed {
		l.a.auth.ForgetFileEntry(id)
	}
	return removed, err
}
