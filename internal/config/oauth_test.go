package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// fakeProviderAuth is an extension's OAuth provider: refresh returns the next numbered token.
type fakeProviderAuth struct {
	refreshes  atomic.Int32
	refreshErr error
	gate       chan struct{} // non-nil: Refresh waits for it
	native     bool
	configured bool
}

func (f *fakeProviderAuth) OAuth() bool      { return true }
func (f *fakeProviderAuth) Native() bool     { return f.native }
func (f *fakeProviderAuth) Configured() bool { return f.configured }

func (f *fakeProviderAuth) Refresh(ctx context.Context, cred json.RawMessage) (json.RawMessage, error) {
	if f.gate != nil {
		<-f.gate
	}
	n := f.refreshes.Add(1)
	if f.refreshErr != nil {
		return nil, f.refreshErr
	}
	return oauthCred(fmt.Sprintf("access-%d", n), time.Now().Add(time.Hour)), nil
}

func (f *fakeProviderAuth) Resolve(ctx context.Context, cred json.RawMessage) (ResolvedAuth, bool, error) {
	var c struct {
		Type, Access, Key string
	}
	if cred == nil {
		return ResolvedAuth{APIKey: NewAPIKey("ambient")}, f.configured, nil
	}
	_ = json.Unmarshal(cred, &c)
	if c.Type == "api_key" {
		return ResolvedAuth{APIKey: NewAPIKey(c.Key)}, true, nil
	}
	return ResolvedAuth{APIKey: NewAPIKey(c.Access), Headers: map[string]string{"x-login": "yes"}}, true, nil
}

func oauthCred(access string, expires time.Time) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "oauth", "refresh": "r-" + access, "access": access, "expires": expires.UnixMilli()})
	return b
}

func TestAuthStoreKeepsOtherEntriesAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent", "auth.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"zeta":{"type":"api_key","key":"k1"},"alpha":{"type":"api_key","key":"$A"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewAuthStore(path)
	if _, err := s.Modify(context.Background(), "corp", func(cur json.RawMessage) (json.RawMessage, error) {
		if cur != nil {
			t.Errorf("current = %s", cur)
		}
		return oauthCred("a1", time.UnixMilli(1700000000000)), nil
	}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "{\n  \"zeta\": {\n    \"type\": \"api_key\",\n    \"key\": \"k1\"\n  },\n  \"alpha\": {\n    \"type\": \"api_key\",\n    \"key\": \"$A\"\n  },\n  \"corp\": {\n    \"access\": \"a1\",\n    \"expires\": 1700000000000,\n    \"refresh\": \"r-a1\",\n    \"type\": \"oauth\"\n  }\n}"
	if string(data) != want {
		t.Errorf("auth.json =\n%s\nwant\n%s", data, want)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
	list, _ := s.List()
	if len(list) != 3 || list[2] != (StoredCredential{"corp", "oauth"}) {
		t.Errorf("List = %v", list)
	}
	if removed, err := s.Delete(context.Background(), "zeta"); !removed || err != nil {
		t.Fatalf("Delete = %v %v", removed, err)
	}
	if removed, _ := s.Delete(context.Background(), "zeta"); removed {
		t.Error("second Delete removed something")
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "zeta") || !strings.Contains(string(data), `"alpha"`) || !strings.Contains(string(data), `"corp"`) {
		t.Errorf("after delete: %s", data)
	}
}

func TestAuthStoreWaitsForPiLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.json")
	if err := os.Mkdir(path+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	s := NewAuthStore(path)
	done := make(chan error, 1)
	go func() {
		_, err := s.Modify(context.Background(), "p", func(json.RawMessage) (json.RawMessage, error) {
			return oauthCred("x", time.Now()), nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Modify ran while pi held the lock: %v", err)
	default:
	}
	if cred, _ := s.Credential("p"); cred != nil {
		t.Fatal("written under another's lock")
	}
	os.Remove(path + ".lock")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	os.Mkdir(path+".lock", 0o700)
	cancel()
	if _, err := s.Delete(ctx, "p"); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete with a cancelled wait = %v", err)
	}
}

func newOAuthAuth(t *testing.T, cred json.RawMessage, p ProviderAuth) (*Auth, *AuthStore) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.json")
	if cred != nil {
		b, _ := json.Marshal(map[string]json.RawMessage{"corp": cred})
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store := NewAuthStore(path)
	a := NewAuth(AuthOptions{Getenv: func(string) string { return "" }, Store: store})
	a.SetProviderAuth("corp", p)
	return a, store
}

func TestOAuthValidTokenIsUsedAsIs(t *testing.T) {
	p := &fakeProviderAuth{}
	a, _ := newOAuthAuth(t, oauthCred("live", time.Now().Add(time.Hour)), p)
	if !a.HasAuth("corp") {
		t.Fatal("HasAuth false with a stored login")
	}
	ra, err := a.RequestAuth(context.Background(), modelOf("corp"))
	if err != nil {
		t.Fatal(err)
	}
	if ra.APIKey.Reveal() != "live" || ra.Source != KeyFromOAuth || ra.Headers["x-login"] != "yes" || p.refreshes.Load() != 0 {
		t.Errorf("RequestAuth = %v %s %v, refreshes %d", ra.APIKey.Reveal() == "live", ra.Source, ra.Headers, p.refreshes.Load())
	}
}

func TestOAuthExpiredTokenRefreshedOnceAndStored(t *testing.T) {
	gate := make(chan struct{})
	p := &fakeProviderAuth{gate: gate}
	a, store := newOAuthAuth(t, oauthCred("old", time.Now().Add(time.Minute)), p)
	const n = 8
	var wg sync.WaitGroup
	keys := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _, err := a.APIKey(context.Background(), "corp")
			keys[i], errs[i] = k.Reveal(), err
		}()
	}
	close(gate)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || keys[i] != "access-1" {
			t.Fatalf("request %d: key %q err %v", i, keys[i], errs[i])
		}
	}
	// Callers arriving after the first refresh ended see the stored token still valid: at most one
	// refresh however the requests interleave.
	if got := p.refreshes.Load(); got != 1 {
		t.Errorf("refreshes = %d, want 1", got)
	}
	cred, _ := store.Credential("corp")
	if !strings.Contains(string(cred), `"access":"access-1"`) {
		t.Errorf("stored %s", cred)
	}
}

func TestOAuthFailingRefreshTellsToLogInAgain(t *testing.T) {
	p := &fakeProviderAuth{refreshErr: errors.New("invalid_grant")}
	a, store := newOAuthAuth(t, oauthCred("old", time.Now().Add(-time.Hour)), p)
	_, _, err := a.APIKey(context.Background(), "corp")
	var re *OAuthRefreshError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "/login corp") {
		t.Fatalf("err = %v", err)
	}
	cred, _ := store.Credential("corp")
	if !strings.Contains(string(cred), `"access":"old"`) {
		t.Errorf("a failed refresh changed the stored login: %s", cred)
	}
}

func TestOAuthRefreshOutlivesCancelledRequest(t *testing.T) {
	gate := make(chan struct{})
	p := &fakeProviderAuth{gate: gate}
	a, store := newOAuthAuth(t, oauthCred("old", time.Now()), p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := a.APIKey(ctx, "corp"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	close(gate)
	// The refresh already started goes on and stores its token: the next request uses it.
	k, _, err := a.APIKey(context.Background(), "corp")
	if err != nil || k.Reveal() != "access-1" {
		t.Fatalf("key %q err %v", k.Reveal(), err)
	}
	if p.refreshes.Load() != 1 {
		t.Errorf("refreshes = %d", p.refreshes.Load())
	}
	cred, _ := store.Credential("corp")
	if !strings.Contains(string(cred), "access-1") {
		t.Errorf("stored %s", cred)
	}
}

func TestNativeProviderAuth(t *testing.T) {
	p := &fakeProviderAuth{native: true}
	a, store := newOAuthAuth(t, nil, p)
	if a.HasAuth("corp") {
		t.Error("HasAuth true without a credential or ambient auth")
	}
	if _, _, err := a.APIKey(context.Background(), "corp"); err == nil {
		t.Error("no error without a key")
	}
	p.configured = true
	if k, src, err := a.APIKey(context.Background(), "corp"); err != nil || k.Reveal() != "ambient" || src != KeyFromProvider {
		t.Errorf("ambient: %v %s %v", k.Reveal() == "ambient", src, err)
	}
	store.Modify(context.Background(), "corp", func(json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"type":"api_key","key":"stored-key"}`), nil
	})
	if k, _, err := a.APIKey(context.Background(), "corp"); err != nil || k.Reveal() != "stored-key" {
		t.Errorf("stored: %v", err)
	}
	a.SetRuntimeAPIKey("corp", NewAPIKey("flag"))
	if k, _, _ := a.APIKey(context.Background(), "corp"); k.Reveal() != "flag" {
		t.Error("--api-key does not win")
	}
}

func modelOf(prov string) *provider.Model {
	return &provider.Model{ID: "m", Provider: prov, API: "openai-completions"}
}
