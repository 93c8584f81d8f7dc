package tui

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// signInURL finds the authorization URL the sign-in shows: the lines after "in your browser:",
// joined (the screen wraps it).
func signInURL(all string) string {
	_, rest, ok := strings.Cut(all, "in your browser:\n")
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || !urlChars.MatchString(line) {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

var urlChars = regexp.MustCompile(`^[A-Za-z0-9:/?&=%._~+-]+$`)

var callbackURL = regexp.MustCompile(`redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A[0-9]+%2Fcallback`)

// /mcp login shows the authorization URL and waits for the callback off the UI goroutine (the
// editor keeps working); the browser's approval signs in and connects the server. A second sign-in
// is cancelled with Escape.
func TestMCPLoginInTheTUI(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	agent := t.TempDir()
	if err := os.WriteFile(filepath.Join(agent, "mcp.json"), []byte(`{"mcpServers": {"protected": {"url": "`+a.MCPURL+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mcp.NewManager(mcp.Load(agent, t.TempDir(), false), mcp.Options{AgentDir: agent, Cwd: t.TempDir()})
	m.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Close(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	m.Wait(ctx)
	cancel()
	if st, _ := m.Status("protected"); st.State != mcp.StateNeedsAuth {
		t.Fatalf("before sign-in: %+v", st)
	}

	u := startUI(t, newTestSession(t, newScript(), nil), Options{MCP: m})
	u.typeText("/mcp login protected")
	u.key(tea.KeyEnter)
	all := u.waitAll("the authorization URL", func(s string) bool { return callbackURL.MatchString(signInURL(s)) })
	if !strings.Contains(all, `Signing in to MCP server "protected"… (Escape cancels)`) {
		t.Fatalf("screen:\n%s", all)
	}
	// The UI is not blocked while the sign-in waits: the editor takes text.
	u.typeText("still typing")
	u.waitScreen("the editor", contains("still typing"))
	resp, err := http.Get(signInURL(all)) // the browser approves and follows the redirect to the callback
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u.waitAll("the sign-in", contains(`Signed in to MCP server "protected" (6 tools).`))
	if st, _ := m.Status("protected"); st.State != mcp.StateConnected {
		t.Fatalf("after sign-in: %+v", st)
	}
	if data, _ := os.ReadFile(filepath.Join(agent, "mcp-auth.json")); strings.Contains(u.waitAll("the transcript", func(string) bool { return true }), "access-1") || !strings.Contains(string(data), "access-1") {
		t.Fatalf("the token was shown, or not stored:\n%s", data)
	}

	// Sign out, sign in again, and cancel with Escape.
	u.key(tea.KeyCtrlU)
	u.typeText("/mcp logout protected")
	u.key(tea.KeyEnter)
	u.waitAll("the sign-out", contains(`Signed out of MCP server "protected".`))
	u.typeText("/mcp login protected")
	u.key(tea.KeyEnter)
	u.waitAll("the second URL", func(s string) bool { return strings.Count(s, "in your browser:") == 2 })
	u.key(tea.KeyEscape)
	u.waitAll("the cancellation", contains("Sign-in cancelled."))
	if st, _ := m.Status("protected"); st.State != mcp.StateNeedsAuth {
		t.Fatalf("after the cancelled sign-in: %+v", st)
	}
}
