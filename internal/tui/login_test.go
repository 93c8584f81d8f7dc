package tui

import (
	"context"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
)

// fakeLogins is a Logins whose extensions load when loaded is closed.
type fakeLogins struct {
	loaded chan struct{}

	mu        sync.Mutex
	stored    []LoginProvider
	loggedOut []string
}

func (f *fakeLogins) Providers() []LoginProvider {
	select {
	case <-f.loaded:
		return []LoginProvider{{ID: "corp", Name: "Corp SSO", Type: "oauth"}}
	default:
		return nil
	}
}

func (f *fakeLogins) Stored() ([]LoginProvider, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stored, nil
}

func (f *fakeLogins) Login(ctx context.Context, _ string, _ extensions.LoginUI) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func (f *fakeLogins) Logout(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loggedOut = append(f.loggedOut, id)
	return true, nil
}

func (f *fakeLogins) Loading() bool {
	select {
	case <-f.loaded:
		return false
	default:
		return true
	}
}

func (f *fakeLogins) WaitLoaded(ctx context.Context) {
	select {
	case <-f.loaded:
	case <-ctx.Done():
	}
}

// /login typed while the extensions load waits for their logins; the list then offers them.
func TestLoginWaitsForTheExtensions(t *testing.T) {
	logins := &fakeLogins{loaded: make(chan struct{})}
	u := startUI(t, newTestSession(t, newScript(), nil), Options{Logins: logins})
	u.submit("/login")
	u.waitScreen("the wait", contains("Waiting for the extensions to load"))
	close(logins.loaded)
	u.waitScreen("the providers", contains("Select provider to configure:", "Corp SSO"))
	u.key(tea.KeyEnter)
	u.waitScreen("the login started", contains("Logging in to Corp SSO"))
	u.key(tea.KeyEsc)
	u.waitAll("the login cancelled", contains("Login cancelled."))
}

// A provider picked in the /logout list is logged out of as it was listed.
func TestLogoutPicked(t *testing.T) {
	logins := &fakeLogins{loaded: make(chan struct{}), stored: []LoginProvider{{ID: "corp", Name: "Corp SSO", Type: "oauth"}}}
	close(logins.loaded)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{Logins: logins})
	u.submit("/logout")
	u.waitScreen("the stored credentials", contains("Select provider to logout:", "Corp SSO"))
	u.key(tea.KeyEnter)
	u.waitAll("the logout", contains("Logged out of Corp SSO"))
	logins.mu.Lock()
	defer logins.mu.Unlock()
	if len(logins.loggedOut) != 1 || logins.loggedOut[0] != "corp" {
		t.Fatalf("logged out of %q", logins.loggedOut)
	}
}
