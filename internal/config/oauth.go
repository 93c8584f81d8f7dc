package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ProviderAuth is the authentication an extension's provider brings (pi's ProviderAuth, reached
// through the extension host): an OAuth login whose stored credential is refreshed and turned into a
// key, and, for a native pi-ai Provider, the resolution of its API key. The calls may take a
// network round trip.
type ProviderAuth interface {
	// OAuth reports whether the provider has an OAuth login (its stored "oauth" credentials are its).
	OAuth() bool
	// Native reports whether the provider resolves its API key itself (a pi-ai Provider object):
	// then a stored "api_key" credential, or none, goes to Resolve, not to pi-go's own lookup.
	Native() bool
	// Configured reports whether Resolve with no stored credential finds a key (ambient auth:
	// environment, files), as the extension found when it registered.
	Configured() bool
	// Refresh exchanges an expired OAuth credential for a new one.
	Refresh(ctx context.Context, credential json.RawMessage) (json.RawMessage, error)
	// Resolve turns a stored credential (nil: none) into what a request sends; ok is false when
	// there is none.
	Resolve(ctx context.Context, credential json.RawMessage) (ResolvedAuth, bool, error)
}

// ResolvedAuth is pi's ModelAuth: the key and the extra headers of a request.
type ResolvedAuth struct {
	APIKey  APIKey
	Headers map[string]string
}

// OAuth timing, pi's (pi-ai auth/resolve.js): a token with less than five minutes left is refreshed
// before a request; a refresh gets 15 s and is not cut short by the request's cancellation, since the
// provider may already have rotated the refresh token.
const (
	OAuthMinValidity    = 5 * time.Minute
	OAuthRefreshTimeout = 15 * time.Second
)

// KeyFromOAuth: the key came from a stored OAuth login; KeyFromProvider: an extension's native
// provider resolved it.
const (
	KeyFromOAuth    KeySource = "OAuth"
	KeyFromProvider KeySource = "provider"
)

// OAuthRefreshError is a stored login that could not be refreshed: the user must log in again.
type OAuthRefreshError struct {
	Provider string
	Err      error
}

func (e *OAuthRefreshError) Error() string {
	return fmt.Sprintf("OAuth token refresh failed for %s: %v. Run /login %s to log in again.", e.Provider, e.Err, e.Provider)
}

func (e *OAuthRefreshError) Unwrap() error { return e.Err }

// oauthExpiry reads a stored OAuth credential's "expires" (ms since the epoch); ok is false for an
// entry that is not a usable OAuth credential.
func oauthExpiry(raw json.RawMessage) (time.Time, bool) {
	var c struct {
		Type    string   `json:"type"`
		Access  *string  `json:"access"`
		Refresh *string  `json:"refresh"`
		Expires *float64 `json:"expires"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Type != "oauth" || c.Access == nil || c.Refresh == nil || c.Expires == nil {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(*c.Expires)), true
}

// SetProviderAuth makes an extension's provider authentication count for provider name; nil
// removes it.
func (a *Auth) SetProviderAuth(name string, p ProviderAuth) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p == nil {
		delete(a.providerAuth, name)
		return
	}
	if a.providerAuth == nil {
		a.providerAuth = map[string]ProviderAuth{}
	}
	a.providerAuth[name] = p
}

func (a *Auth) extensionAuth(name string) ProviderAuth {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.providerAuth[name]
}

// Store is the auth.json the logins are kept in (nil: none).
func (a *Auth) Store() *AuthStore { return a.store }

// storedCredential is prov's auth.json entry and its type, read live (another pi may have logged in).
func (a *Auth) storedCredential(prov string) (json.RawMessage, string) {
	if a.store == nil {
		return nil, ""
	}
	raw, err := a.store.Credential(prov)
	if err != nil || raw == nil {
		return nil, ""
	}
	return raw, credentialType(raw)
}

// hasProviderAuth is HasAuth for a provider with extension authentication; handled is false when
// pi-go's own lookup decides.
func (a *Auth) hasProviderAuth(prov string) (has, handled bool) {
	p := a.extensionAuth(prov)
	if p == nil {
		return false, false
	}
	raw, typ := a.storedCredential(prov)
	switch {
	case typ == "oauth" && p.OAuth():
		_, ok := oauthExpiry(raw)
		return ok, true
	case p.Native() && typ == "api_key":
		return true, true
	case p.Native() && raw == nil:
		return p.Configured(), true
	case p.Native():
		return false, true // a stored credential owns the provider, even one it cannot use (pi)
	}
	return false, false
}

// resolveProviderAuth resolves a request's key through the provider's extension; handled is false
// when pi-go's own lookup decides (no extension auth, or a legacy provider without a stored login).
func (a *Auth) resolveProviderAuth(ctx context.Context, prov string) (r ResolvedAuth, source KeySource, handled bool, err error) {
	p := a.extensionAuth(prov)
	if p == nil {
		return r, "", false, nil
	}
	raw, typ := a.storedCredential(prov)
	if typ == "oauth" && p.OAuth() {
		r, err = a.resolveOAuth(ctx, prov, p, raw)
		return r, KeyFromOAuth, true, err
	}
	if !p.Native() {
		return r, "", false, nil
	}
	if raw != nil && typ != "api_key" {
		return r, "", true, &NoAPIKeyError{Provider: prov}
	}
	r, ok, err := p.Resolve(ctx, raw)
	if err != nil {
		return r, "", true, fmt.Errorf("API key auth failed for provider %s: %w", prov, err)
	}
	if !ok {
		return r, "", true, &NoAPIKeyError{Provider: prov}
	}
	return r, KeyFromProvider, true, nil
}

// resolveOAuth refreshes a stored login that expires within OAuthMinValidity, then asks the
// extension for the key it stands for.
func (a *Auth) resolveOAuth(ctx context.Context, prov string, p ProviderAuth, raw json.RawMessage) (ResolvedAuth, error) {
	expires, ok := oauthExpiry(raw)
	if !ok {
		return ResolvedAuth{}, fmt.Errorf("the stored OAuth credential of %s in %s is not valid. Run /login %s.", prov, a.store.Path(), prov)
	}
	if time.Until(expires) <= OAuthMinValidity {
		fresh, err := a.refreshOAuth(ctx, prov, p)
		if err != nil {
			return ResolvedAuth{}, err
		}
		raw = fresh
	}
	r, ok, err := p.Resolve(ctx, raw)
	if err != nil {
		return r, fmt.Errorf("OAuth auth derivation failed for %s: %w", prov, err)
	}
	if !ok {
		return r, &NoAPIKeyError{Provider: prov}
	}
	return r, nil
}

// refreshOAuth refreshes prov's stored login once however many requests ask at the same time (in
// this process through refreshing, across processes through auth.json's lock: the expiry is checked
// again under it). The refresh runs to its end even when ctx ends first.
func (a *Auth) refreshOAuth(ctx context.Context, prov string, p ProviderAuth) (json.RawMessage, error) {
	ch := a.refreshing.DoChan(prov, func() (any, error) { return a.runRefresh(prov, p) })
	select {
	case r := <-ch:
		cred, _ := r.Val.(json.RawMessage)
		return cred, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var errLoggedOut = errors.New("logged out meanwhile")

func (a *Auth) runRefresh(prov string, p ProviderAuth) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), OAuthRefreshTimeout)
	defer cancel()
	var refreshErr error
	cred, err := a.store.Modify(ctx, prov, func(current json.RawMessage) (json.RawMessage, error) {
		expires, ok := oauthExpiry(current)
		if !ok {
			return nil, errLoggedOut
		}
		if time.Until(expires) > OAuthMinValidity {
			return nil, nil // another request or process refreshed it
		}
		next, err := p.Refresh(ctx, current)
		if err != nil {
			refreshErr = err
			return nil, err
		}
		if _, ok := oauthExpiry(next); !ok {
			refreshErr = errors.New("the refresh returned no OAuth credential (type, access, refresh, expires)")
			return nil, refreshErr
		}
		return next, nil
	})
	switch {
	case refreshErr != nil:
		return nil, &OAuthRefreshError{Provider: prov, Err: refreshErr}
	case errors.Is(err, errLoggedOut):
		return nil, &NoAPIKeyError{Provider: prov}
	case err != nil:
		return nil, fmt.Errorf("OAuth refresh of %s: %w", prov, err)
	}
	return cred, nil
}
