package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
)

// CredentialStore keeps OAuth state in mcp-auth.json, in pi 1.6's shape: one entry per server keyed
// "<namespace>|<url>" (or, written by older pi versions, by the URL alone) holding serverUrl,
// clientInformation, tokens, tokensExpireAt and discovery. The file is mode 0600; tokens never leave
// it except as the Authorization header of the server's own requests.
type CredentialStore struct {
	path string
	mu   sync.Mutex
}

// NewCredentialStore is the store of <agentDir>/mcp-auth.json.
func NewCredentialStore(agentDir string) *CredentialStore {
	return &CredentialStore{path: filepath.Join(agentDir, "mcp-auth.json")}
}

// Path is the mcp-auth.json file.
func (s *CredentialStore) Path() string { return s.path }

// oauthState is one server's entry. Unknown fields are kept through raw.
type oauthState struct {
	ServerURL         string          `json:"serverUrl"`
	ClientInformation *clientInfo     `json:"clientInformation,omitempty"`
	Tokens            *oauthTokens    `json:"tokens,omitempty"`
	TokensExpireAt    int64           `json:"tokensExpireAt,omitempty"`
	CodeVerifier      string          `json:"codeVerifier,omitempty"`
	OAuthState        string          `json:"oauthState,omitempty"`
	Discovery         *discoveryState `json:"discovery,omitempty"`
}

type clientInfo struct {
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
}

type oauthTokens struct {
	AccessToken  string  `json:"access_token"`
	TokenType    string  `json:"token_type"`
	ExpiresIn    float64 `json:"expires_in,omitempty"`
	Scope        string  `json:"scope,omitempty"`
	RefreshToken string  `json:"refresh_token,omitempty"`
}

type discoveryState struct {
	AuthorizationServerURL      string          `json:"authorizationServerUrl"`
	AuthorizationServerMetadata *authServerMeta `json:"authorizationServerMetadata,omitempty"`
	ResourceMetadataURL         string          `json:"resourceMetadataUrl,omitempty"`
}

type authServerMeta struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint,omitempty"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	ResponseTypes         []string `json:"response_types_supported"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported,omitempty"`
}

// storeKeys are a server's key and the legacy key by URL alone.
func storeKeys(name, serverURL string) (key, legacy string) {
	legacy = serverURL
	if u, err := url.Parse(serverURL); err == nil {
		legacy = u.String()
		if u.Path == "" {
			legacy += "/" // JavaScript's URL always has a path
		}
	}
	return namespace(name) + "|" + legacy, legacy
}

// readAll parses the file; a missing or empty file is empty.
func (s *CredentialStore) readAll() (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) || len(bytes.TrimSpace(data)) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	states := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &states); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return states, nil
}

func (s *CredentialStore) writeAll(states map[string]json.RawMessage) error {
	data, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".mcp-auth.json.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// load is a server's state, nil when none is stored.
func (s *CredentialStore) load(name, serverURL string) (*oauthState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	states, err := s.readAll()
	if err != nil {
		return nil, err
	}
	key, legacy := storeKeys(name, serverURL)
	raw, ok := states[key]
	if !ok {
		raw, ok = states[legacy]
	}
	if !ok {
		return nil, nil
	}
	var st oauthState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("%s: server %q: %w", s.path, name, err)
	}
	return &st, nil
}

// save stores a server's state, replacing a legacy entry.
func (s *CredentialStore) save(name, serverURL string, st *oauthState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	states, err := s.readAll()
	if err != nil {
		return err
	}
	key, legacy := storeKeys(name, serverURL)
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	delete(states, legacy)
	states[key] = data
	return s.writeAll(states)
}

// Remove deletes a server's credentials and reports whether there were any.
func (s *CredentialStore) Remove(name, serverURL string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	states, err := s.readAll()
	if err != nil {
		return false, err
	}
	key, legacy := storeKeys(name, serverURL)
	_, a := states[key]
	_, b := states[legacy]
	if !a && !b {
		return false, nil
	}
	delete(states, key)
	delete(states, legacy)
	return true, s.writeAll(states)
}

// AccessToken is the stored access token of an OAuth server, refreshed first when it expired and a
// refresh token is stored; "" when the server has no usable token (it then answers 401 and the
// user signs in).
func (s *CredentialStore) AccessToken(ctx context.Context, srv Server, client *http.Client) (string, error) {
	st, err := s.load(srv.Name, srv.Config.URL)
	if err != nil || st == nil || st.Tokens == nil {
		return "", err
	}
	if st.TokensExpireAt != 0 && nowMillis() >= st.TokensExpireAt-30_000 {
		if refreshed, err := s.refresh(ctx, srv, st, client); err == nil {
			return refreshed, nil
		}
		return "", nil
	}
	return st.Tokens.AccessToken, nil
}
