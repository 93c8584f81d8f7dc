package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// approve follows the authorization URL as a browser would: the server redirects to the callback.
func approve(t *testing.T) SignInPrompt {
	return func(authURL string) {
		go func() {
			resp, err := http.Get(authURL)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
	}
}

func TestOAuthSignInStoresTokensAndConnects(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	m := newTestManager(t, `"protected": {"url": "`+a.MCPURL+`"}`)
	wait(t, m)
	if st, _ := m.Status("protected"); st.State != StateNeedsAuth {
		t.Fatalf("before sign-in: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.SignIn(ctx, "protected", approve(t)); err != nil {
		t.Fatal(err)
	}
	st, _ := m.Status("protected")
	if st.State != StateConnected || len(st.Tools) == 0 {
		t.Fatalf("after sign-in: %+v", st)
	}
	// mcp-auth.json holds the state in pi's shape, under "<namespace>|<url>", mode 0600.
	path := m.opts.Credentials.Path()
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mcp-auth.json: %v %v", err, info.Mode())
	}
	var states map[string]map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &states); err != nil {
		t.Fatal(err)
	}
	entry := states["mcp__protected|"+a.MCPURL]
	if entry == nil || entry["tokens"].(map[string]any)["access_token"] != "access-1" || entry["clientInformation"].(map[string]any)["client_id"] != "client-1" {
		t.Fatalf("stored: %s", data)
	}
	// An expired token is refreshed before the next connect.
	entry["tokensExpireAt"] = float64(time.Now().Add(-time.Minute).UnixMilli())
	data, _ = json.Marshal(states)
	os.WriteFile(path, data, 0o600)
	if err := m.Reconnect(ctx, "protected"); err != nil {
		t.Fatal(err)
	}
	st2, _ := m.Credentials().load("protected", a.MCPURL)
	if st2.Tokens.AccessToken != "access-2" || st2.Tokens.RefreshToken != "refresh-2" {
		t.Fatalf("after refresh: %+v", st2.Tokens)
	}
	// Signing out forgets the credentials.
	if removed, err := m.SignOut(ctx, "protected"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if st, _ := m.Status("protected"); st.State != StateNeedsAuth {
		t.Fatalf("after sign-out: %+v", st)
	}
}

func TestOAuthSignInTimesOut(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	m := newTestManager(t, `"protected": {"url": "`+a.MCPURL+`"}`)
	wait(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	err := m.SignIn(ctx, "protected", func(string) { cancel() })
	if err != ErrSignInCancelled {
		t.Fatal(err)
	}
}
