package extensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// AuthEvent is pi's AuthEvent: what a login shows while it runs. Type is "auth_url" (URL to open,
// Instructions), "device_code" (UserCode to enter at VerificationURI), "progress" or "info"
// (Message, Links).
type AuthEvent struct {
	Type                 string     `json:"type"`
	URL                  string     `json:"url,omitempty"`
	Instructions         string     `json:"instructions,omitempty"`
	UserCode             string     `json:"userCode,omitempty"`
	VerificationURI      string     `json:"verificationUri,omitempty"`
	OpenBrowserOnConfirm *bool      `json:"openBrowserOnConfirm,omitempty"`
	CopyCodeOnConfirm    *bool      `json:"copyCodeOnConfirm,omitempty"`
	Message              string     `json:"message,omitempty"`
	Links                []AuthLink `json:"links,omitempty"`
}

// AuthLink is a link of an "info" event.
type AuthLink struct {
	URL   string `json:"url"`
	Label string `json:"label,omitempty"`
}

// AuthPrompt is pi's AuthPrompt: a question of a login. Type is "text", "secret" (the answer is not
// shown), "manual_code" (paste the redirect URL or code) or "select" (one of Options, answered with
// its id).
type AuthPrompt struct {
	Type        string       `json:"type"`
	Message     string       `json:"message"`
	Placeholder string       `json:"placeholder,omitempty"`
	Options     []AuthOption `json:"options,omitempty"`
}

// AuthOption is one choice of a "select" prompt.
type AuthOption struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// LoginUI is the person a login talks to: notifications are shown, prompts answered. Prompt
// returns ErrLoginCancelled when the user backs out, or ctx's error.
type LoginUI interface {
	Notify(AuthEvent)
	Prompt(ctx context.Context, p AuthPrompt) (string, error)
}

// ErrLoginCancelled is a login the user cancelled (pi's "Login cancelled").
var ErrLoginCancelled = errors.New("Login cancelled")

// Host to extension: the calls of a provider's authentication (docs/extension-protocol.md).
const (
	msgProviderLogin   = "provider_login"
	msgProviderRefresh = "provider_refresh"
	msgProviderAuth    = "provider_auth"
)

// ProviderAuth is the authentication an extension's provider brings: a legacy config's oauth, or a
// native pi-ai Provider's auth. Its calls go to the process that registered the provider.
type ProviderAuth struct {
	h    *Host
	p    *process
	name string
	// OAuthName is the login's display name ("" without an OAuth login).
	OAuthName string
	// IsNative: a pi-ai Provider object, which resolves its API key itself (provider_auth without a
	// stored OAuth credential); ApiKeyConfigured: its key resolves without a stored credential.
	IsNative         bool
	APIKeyConfigured bool
}

// Login runs the provider's OAuth login with ui answering its callbacks; the result is the
// credential to store ({type:"oauth", access, refresh, expires, …}). Cancelling ctx aborts the
// extension's AbortSignal. No deadline: the user may take their time in the browser.
func (a *ProviderAuth) Login(ctx context.Context, ui LoginUI) (json.RawMessage, error) {
	if a.OAuthName == "" {
		return nil, fmt.Errorf("provider %s has no OAuth login", a.name)
	}
	id := strconv.FormatInt(a.h.loginSeq.Add(1), 10)
	a.h.logins.Store(id, &loginSession{ui: ui, ctx: ctx})
	defer a.h.logins.Delete(id)
	res, err := a.p.call(ctx, hostMessage{Type: msgProviderLogin, Name: a.name, LoginID: id}, 0, nil)
	if ctx.Err() != nil {
		return nil, ErrLoginCancelled
	}
	if err != nil {
		if err.Error() == ErrLoginCancelled.Error() {
			return nil, ErrLoginCancelled
		}
		return nil, err
	}
	if len(res) == 0 || string(res) == "null" {
		return nil, fmt.Errorf("the login of %s returned no credential", a.name)
	}
	return res, nil
}

// Refresh asks the extension for a fresh OAuth credential in place of credential.
func (a *ProviderAuth) Refresh(ctx context.Context, credential json.RawMessage) (json.RawMessage, error) {
	res, err := a.p.call(ctx, hostMessage{Type: msgProviderRefresh, Name: a.name, Credential: credential}, 0, nil)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Resolve asks the extension what a request sends for credential (nil: no stored credential): an
// OAuth credential's getApiKey / toAuth, or a native provider's API key resolution. ok is false
// when it found none.
func (a *ProviderAuth) Resolve(ctx context.Context, credential json.RawMessage) (apiKey string, headers map[string]string, ok bool, err error) {
	res, err := a.p.call(ctx, hostMessage{Type: msgProviderAuth, Name: a.name, Credential: credential}, a.h.cfg.CallTimeout, nil)
	if err != nil {
		return "", nil, false, err
	}
	if len(res) == 0 || string(res) == "null" {
		return "", nil, false, nil
	}
	var r struct {
		APIKey  string            `json:"apiKey"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", nil, false, fmt.Errorf("provider_auth of %s: %w", a.name, err)
	}
	return r.APIKey, r.Headers, true, nil
}

// loginSession is a login in progress, by the id its provider_login carried.
type loginSession struct {
	ui  LoginUI
	ctx context.Context
	mu  sync.Mutex // notifications are shown in the order they were sent
}

// loginRequest is the params of the request "login": one callback of a running login.
type loginRequest struct {
	LoginID string      `json:"loginId"`
	Notify  *AuthEvent  `json:"notify"`
	Prompt  *AuthPrompt `json:"prompt"`
}

// handleLogin answers a login's callback with the UI of that login.
func (h *Host) handleLogin(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var r loginRequest
	if err := json.Unmarshal(params, &r); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	v, ok := h.logins.Load(r.LoginID)
	if !ok {
		return nil, ErrLoginCancelled // the login ended (cancelled) before its callback came
	}
	s := v.(*loginSession)
	switch {
	case r.Notify != nil:
		s.mu.Lock()
		s.ui.Notify(*r.Notify)
		s.mu.Unlock()
		return nil, nil
	case r.Prompt != nil:
		value, err := s.ui.Prompt(s.ctx, *r.Prompt)
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, ErrLoginCancelled) {
				return nil, ErrLoginCancelled
			}
			return nil, err
		}
		return json.Marshal(map[string]string{"value": value})
	}
	return nil, errors.New("login: neither notify nor prompt")
}
