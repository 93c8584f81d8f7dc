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
	"reflect"
	"strings"
	"sync"

	"github.com/pi-go/pi-go/internal/jsonx"
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

// oauthState is one server's entry, as far as pi-go reads it; save keeps the members it does not
// know.
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

// readAll parses the file, its entries in order; a missing or empty file is empty.
func (s *CredentialStore) readAll() (*jsonx.Object, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) || len(bytes.TrimSpace(data)) == 0 {
		return jsonx.NewObject(), nil
	}
	if err != nil {
		return nil, err
	}
	states, err := jsonx.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return states, nil
}

// writeAll replaces the file (mode 0600) with states as pi writes it: JSON.stringify(states, null, 2)
// and a newline.
func (s *CredentialStore) writeAll(states *jsonx.Object) error {
	data, err := states.MarshalIndent("  ")
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
	raw, ok := states.Get(key)
	if !ok {
		raw, ok = states.Get(legacy)
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

// save stores a server's state, replacing a legacy entry. The members pi-go does not know (pi
// writes more of the discovery, and servers send more token fields) keep their values: st is
// written over the stored entry, and other servers' entries stay as they are, in their order.
func (s *CredentialStore) save(name, serverURL string, st *oauthState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	states, err := s.readAll()
	if err != nil {
		return err
	}
	key, legacy := storeKeys(name, serverURL)
	prev, ok := states.Get(key)
	if !ok {
		prev, _ = states.Get(legacy)
	}
	data, err := mergeKnown(prev, reflect.ValueOf(st))
	if err != nil {
		return err
	}
	states.Delete(legacy)
	states.Set(key, data)
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
	if !states.Has(key) && !states.Has(legacy) {
		return false, nil
	}
	states.Delete(key)
	states.Delete(legacy)
	return true, s.writeAll(states)
}

// mergeKnown writes v over prev, the raw JSON stored before: for a struct, the members its fields
// name are set from v (and removed when v omits them), nested structs merge the same way, and the
// members it does not name keep their values and places. Other values replace prev.
func mergeKnown(prev json.RawMessage, v reflect.Value) (json.RawMessage, error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return json.RawMessage("null"), nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return marshalJS(v.Interface())
	}
	out := jsonx.NewObject()
	if jsonx.IsObject(prev) {
		if o, err := jsonx.ParseObject(prev); err == nil {
			out = o
		}
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && isEmptyJSON(fv) {
			out.Delete(name)
			continue
		}
		old, _ := out.Get(name)
		val, err := mergeKnown(old, fv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out.Set(name, val)
	}
	return out.MarshalJSON()
}

// isEmptyJSON is encoding/json's omitempty test.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return v.Len() == 0
	}
	return v.IsZero()
}

// marshalJS encodes v without escaping <, > and &, as JSON.stringify writes them.
func marshalJS(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
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
