package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// bearerServer is the test MCP server on 127.0.0.1, answering only requests with the bearer token.
func bearerServer(t *testing.T, token string) *httptest.Server {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.New(mcptest.Options{}) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newProviderManager(t *testing.T, entry string, token func(ctx context.Context, provider string) (string, error)) *Manager {
	t.Helper()
	agent := t.TempDir()
	writeFile(t, UserFile(agent), `{"mcpServers": {`+entry+`}}`)
	cfg := Load(agent, t.TempDir(), false)
	if len(cfg.Errors) > 0 {
		t.Fatal(cfg.Errors)
	}
	m := NewManager(cfg, Options{AgentDir: agent, Cwd: t.TempDir(), Version: "test", ProviderToken: token})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// auth.provider sends the provider's credential, read on every request; without one the server's
// 401 asks for /login of the provider, never for MCP's OAuth.
func TestAuthProviderSendsTheProvidersToken(t *testing.T) {
	srv := bearerServer(t, "sk-provider-key")
	var asked atomic.Int32
	var key atomic.Value
	key.Store("")
	m := newProviderManager(t, `"docs": {"url": "`+srv.URL+`", "auth": {"provider": "acme"}}`,
		func(_ context.Context, provider string) (string, error) {
			asked.Add(1)
			if provider != "acme" {
				return "", errors.New("asked for " + provider)
			}
			if k := key.Load().(string); k != "" {
				return k, nil
			}
			return "", errors.New(`no API key for provider "acme"`)
		})
	wait(t, m)
	st, _ := m.Status("docs")
	if st.State != StateNeedsAuth {
		t.Fatalf("without a key: %+v", st)
	}
	if _, err := m.CallTool(context.Background(), "docs", "echo", map[string]any{"text": "x"}, nil); err == nil ||
		err.Error() != `MCP server "docs" requires sign-in. Run /login acme to sign in.` {
		t.Fatalf("call without a key: %v", err)
	}
	key.Store("sk-provider-key")
	if err := m.Reconnect(context.Background(), "docs"); err != nil {
		t.Fatal(err)
	}
	res, err := m.CallTool(context.Background(), "docs", "echo", map[string]any{"text": "with the provider's key"}, nil)
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "with the provider's key" {
		t.Fatal(err, res)
	}
	if asked.Load() < 3 {
		t.Fatalf("the token was read %d times: not on every request", asked.Load())
	}
	// mcp-auth.json is not touched: the credential is the provider's.
	if entries, _ := m.Credentials().readAll(); entries.Len() != 0 {
		t.Fatalf("mcp-auth.json: %v", entries)
	}
}
