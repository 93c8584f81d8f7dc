package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func nowMillis() int64 { return time.Now().UnixMilli() }

// tokenRequest posts a form to a token endpoint and decodes the tokens (RFC 6749 §5). Error bodies
// are never quoted: they may echo a code or a secret.
func tokenRequest(ctx context.Context, client *http.Client, endpoint string, form url.Values) (*oauthTokens, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		if e.Error != "" {
			return nil, fmt.Errorf("token endpoint answered %d (%s)", resp.StatusCode, e.Error)
		}
		return nil, fmt.Errorf("token endpoint answered %d", resp.StatusCode)
	}
	var t oauthTokens
	if err := json.Unmarshal(body, &t); err != nil || t.AccessToken == "" {
		return nil, errors.New("token endpoint sent no access_token")
	}
	return &t, nil
}

// storeTokens records new tokens in st, keeping a refresh token the server did not replace.
func storeTokens(st *oauthState, t *oauthTokens) {
	if t.RefreshToken == "" && st.Tokens != nil {
		t.RefreshToken = st.Tokens.RefreshToken
	}
	st.Tokens = t
	st.TokensExpireAt = 0
	if t.ExpiresIn > 0 {
		st.TokensExpireAt = nowMillis() + int64(t.ExpiresIn*1000)
	}
}

// refresh trades the stored refresh token for new tokens and saves them.
func (s *CredentialStore) refresh(ctx context.Context, srv Server, st *oauthState, client *http.Client) (string, error) {
	if st.Tokens.RefreshToken == "" || st.Discovery == nil || st.Discovery.AuthorizationServerMetadata == nil || st.ClientInformation == nil {
		return "", errors.New("no refresh token")
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {st.Tokens.RefreshToken},
		"client_id":     {st.ClientInformation.ClientID},
		"resource":      {srv.Config.URL},
	}
	if st.ClientInformation.ClientSecret != "" {
		form.Set("client_secret", st.ClientInformation.ClientSecret)
	}
	t, err := tokenRequest(ctx, client, st.Discovery.AuthorizationServerMetadata.TokenEndpoint, form)
	if err != nil {
		return "", err
	}
	storeTokens(st, t)
	if err := s.save(srv.Name, srv.Config.URL, st); err != nil {
		return "", err
	}
	return t.AccessToken, nil
}
