package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Sign-in to an OAuth MCP server, as pi 1.6 does it (pi mcp login, /mcp): find the authorization
// server through the server's protected resource metadata (RFC 9728) and the authorization
// server's metadata (RFC 8414, checking its issuer), use the configured client or register one
// (RFC 7591) named "pi" with a loopback redirect URI, send the user to the authorization page with
// PKCE (S256) and the resource indicator, receive the code on 127.0.0.1, exchange it, and store
// everything in mcp-auth.json. pi's Client ID Metadata Documents live on pi.dev and name pi's own
// redirect URIs, so pi-go always registers (pi's "dcr").

// SignInPrompt shows the authorization page to the user.
type SignInPrompt func(authorizationURL string)

// ErrSignInCancelled is a sign-in that was not completed in time or was cancelled.
var ErrSignInCancelled = errors.New("sign-in was cancelled or not completed in time")

// SignIn runs the sign-in for s and stores the tokens. It returns when the callback was handled,
// or ctx ends (ErrSignInCancelled). client carries the HTTP requests (nil: the default client).
func (st *CredentialStore) SignIn(ctx context.Context, s Server, client *http.Client, resolver func(context.Context, string) (string, error), prompt SignInPrompt) error {
	if client == nil {
		client = http.DefaultClient
	}
	oc := s.Config.OAuth
	if oc == nil {
		oc = &OAuthConfig{}
	}
	prm, prmURL, err := discoverResource(ctx, client, s.Config.URL)
	if err != nil {
		return err
	}
	var asURL string
	var meta *authServerMeta
	if oc.AuthServerMetadataURL != "" {
		meta, err = fetchASMetadata(ctx, client, oc.AuthServerMetadataURL)
		if err != nil {
			return err
		}
		asURL = meta.Issuer
	} else {
		if prm == nil || len(prm.AuthorizationServers) == 0 {
			return fmt.Errorf("MCP server %q names no authorization server (set oauth.authServerMetadataUrl)", s.Name)
		}
		asURL = prm.AuthorizationServers[0]
		if meta, err = discoverAuthServer(ctx, client, asURL); err != nil {
			return err
		}
	}
	// The callback listener first: its port is part of the redirect URI the client registers.
	ln, redirect, err := listenCallback(oc)
	if err != nil {
		return err
	}
	defer ln.Close()
	state, err := st.load(s.Name, s.Config.URL)
	if err != nil {
		return err
	}
	if state == nil {
		state = &oauthState{}
	}
	state.ServerURL = s.Config.URL
	info, err := clientFor(ctx, client, s, oc, meta, state.ClientInformation, redirect, resolver)
	if err != nil {
		return err
	}
	verifier := randomString(32)
	challenge := sha256Base64URL(verifier)
	nonce := randomString(16)
	auth, err := url.Parse(meta.AuthorizationEndpoint)
	if err != nil {
		return fmt.Errorf("authorization_endpoint: %w", err)
	}
	q := auth.Query()
	q.Set("response_type", "code")
	q.Set("client_id", info.ClientID)
	q.Set("redirect_uri", redirect)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", nonce)
	q.Set("resource", s.Config.URL)
	scope := oc.Scope
	if scope == "" && prm != nil {
		scope = strings.Join(prm.ScopesSupported, " ")
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	auth.RawQuery = q.Encode()

	codes := make(chan callbackResult, 1)
	srv := &http.Server{Handler: callbackHandler(nonce, meta.Issuer, codes), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }() // ends with the Shutdown below
	defer func() {
		// Shutdown, not Close: the browser's callback request is answered in full before the
		// listener goes (Close cut the "Signed in" page off mid-response).
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		<-served
	}()
	prompt(auth.String())
	var res callbackResult
	select {
	case res = <-codes:
	case <-ctx.Done():
		return ErrSignInCancelled
	}
	if res.err != nil {
		return res.err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {res.code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"client_id":     {info.ClientID},
		"resource":      {s.Config.URL},
	}
	if info.ClientSecret != "" {
		form.Set("client_secret", info.ClientSecret)
	}
	tokens, err := tokenRequest(ctx, client, meta.TokenEndpoint, form)
	if err != nil {
		return err
	}
	storeTokens(state, tokens)
	state.ClientInformation = info
	state.CodeVerifier, state.OAuthState = "", ""
	state.Discovery = &discoveryState{AuthorizationServerURL: asURL, AuthorizationServerMetadata: meta, ResourceMetadataURL: prmURL}
	return st.save(s.Name, s.Config.URL, state)
}

type protectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// wellKnown is /.well-known/<kind> with the URL's path appended (RFC 8414 §3, RFC 9728 §3).
func wellKnown(u *url.URL, kind string) string {
	p := strings.TrimSuffix(u.Path, "/")
	return u.Scheme + "://" + u.Host + "/.well-known/" + kind + p
}

// discoverResource finds the server's protected resource metadata: from the 401 challenge's
// resource_metadata, else at the path-specific then the root well-known URL. A server without
// metadata gives nil (its own origin then serves as the authorization server).
func discoverResource(ctx context.Context, client *http.Client, serverURL string) (*protectedResource, string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, "", err
	}
	var candidates []string
	if hint := challengeResourceMetadata(ctx, client, serverURL); hint != "" {
		candidates = append(candidates, hint)
	}
	candidates = append(candidates, wellKnown(u, "oauth-protected-resource"), u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource")
	for _, c := range candidates {
		var prm protectedResource
		if ok, err := getJSON(ctx, client, c, &prm); err != nil {
			return nil, "", err
		} else if ok {
			return &prm, c, nil
		}
	}
	return &protectedResource{AuthorizationServers: []string{u.Scheme + "://" + u.Host}}, "", nil
}

// challengeResourceMetadata sends an unauthenticated initialize and reads the resource_metadata
// parameter of the 401's WWW-Authenticate header ("" when there is none).
func challengeResourceMetadata(ctx context.Context, client *http.Client, serverURL string) string {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pi","version":"0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return ""
	}
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		if i := strings.Index(h, "resource_metadata="); i >= 0 {
			v := h[i+len("resource_metadata="):]
			if strings.HasPrefix(v, `"`) {
				if end := strings.IndexByte(v[1:], '"'); end >= 0 {
					return v[1 : end+1]
				}
			}
			v, _, _ = strings.Cut(v, ",")
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// getJSON fetches a metadata document; ok is false on 404 and the like.
func getJSON(ctx context.Context, client *http.Client, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w", u, err)
	}
	return true, nil
}

func fetchASMetadata(ctx context.Context, client *http.Client, u string) (*authServerMeta, error) {
	var meta authServerMeta
	ok, err := getJSON(ctx, client, u, &meta)
	if err != nil {
		return nil, err
	}
	if !ok || meta.AuthorizationEndpoint == "" || meta.TokenEndpoint == "" {
		return nil, fmt.Errorf("no authorization server metadata at %s", u)
	}
	return &meta, nil
}

// discoverAuthServer fetches the metadata of issuer and checks it names that issuer.
func discoverAuthServer(ctx context.Context, client *http.Client, issuer string) (*authServerMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, err
	}
	for _, c := range []string{wellKnown(u, "oauth-authorization-server"), wellKnown(u, "openid-configuration")} {
		var meta authServerMeta
		ok, err := getJSON(ctx, client, c, &meta)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", c, meta.Issuer, issuer)
		}
		if meta.AuthorizationEndpoint == "" || meta.TokenEndpoint == "" {
			return nil, fmt.Errorf("authorization server metadata at %s lacks its endpoints", c)
		}
		return &meta, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for %s", issuer)
}

// listenCallback listens on the loopback callback address and returns the redirect URI.
func listenCallback(oc *OAuthConfig) (net.Listener, string, error) {
	host, path, port := "127.0.0.1", "/callback", oc.CallbackPort
	if oc.CallbackURL != "" {
		u, err := url.Parse(oc.CallbackURL)
		if err != nil {
			return nil, "", err
		}
		host, path = u.Hostname(), u.Path
		if p := u.Port(); p != "" {
			port, _ = strconv.Atoi(p)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, "", fmt.Errorf("listen for the OAuth callback: %w", err)
	}
	if oc.CallbackURL != "" && port != 0 {
		return ln, oc.CallbackURL, nil
	}
	display := host
	if strings.Contains(host, ":") {
		display = "[" + host + "]"
	}
	return ln, fmt.Sprintf("http://%s:%d%s", display, ln.Addr().(*net.TCPAddr).Port, path), nil
}

// clientFor is the OAuth client: the configured one, the one registered before (while its redirect
// URI still matches), or a new registration.
func clientFor(ctx context.Context, client *http.Client, s Server, oc *OAuthConfig, meta *authServerMeta, stored *clientInfo, redirect string, resolver func(context.Context, string) (string, error)) (*clientInfo, error) {
	if oc.ClientID != "" {
		info := &clientInfo{ClientID: oc.ClientID}
		if oc.ClientSecret != "" {
			secret, err := resolver(ctx, oc.ClientSecret)
			if err != nil {
				return nil, fmt.Errorf("MCP server %q oauth.clientSecret: %w", s.Name, err)
			}
			info.ClientSecret = secret
		}
		return info, nil
	}
	if stored != nil && (len(stored.RedirectURIs) == 0 || stored.RedirectURIs[0] == redirect || oc.CallbackPort == 0 && oc.CallbackURL == "" && sameLoopbackPath(stored.RedirectURIs[0], redirect)) {
		// A loopback redirect may use any port (RFC 8252 §7.3).
		return stored, nil
	}
	if meta.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("the authorization server of MCP server %q does not register clients; set oauth.clientId", s.Name)
	}
	name := oc.ClientName
	if name == "" {
		name = "pi"
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("register a client: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("register a client: the authorization server answered %d", resp.StatusCode)
	}
	var info clientInfo
	if err := json.Unmarshal(data, &info); err != nil || info.ClientID == "" {
		return nil, errors.New("register a client: no client_id in the answer")
	}
	if len(info.RedirectURIs) == 0 {
		info.RedirectURIs = []string{redirect}
	}
	return &info, nil
}

func sameLoopbackPath(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Hostname() == ub.Hostname() && ua.Path == ub.Path
}

type callbackResult struct {
	code string
	err  error
}

// callbackHandler receives the authorization response once; a wrong state or issuer fails it.
func callbackHandler(state, issuer string, out chan<- callbackResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var res callbackResult
		switch {
		case q.Get("state") != state:
			http.Error(w, "Sign-in failed: the response does not belong to this sign-in.", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = fmt.Errorf("the authorization server refused: %s", q.Get("error"))
		case q.Get("iss") != "" && strings.TrimSuffix(q.Get("iss"), "/") != strings.TrimSuffix(issuer, "/"):
			res.err = errors.New("the authorization response names another issuer")
		case q.Get("code") == "":
			res.err = errors.New("the authorization response has no code")
		default:
			res.code = q.Get("code")
		}
		if res.err != nil {
			http.Error(w, "Sign-in failed. You can close this window.", http.StatusBadRequest)
		} else {
			fmt.Fprintln(w, "Signed in. You can close this window and return to pi.")
		}
		select {
		case out <- res:
		default:
		}
	})
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func sha256Base64URL(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
