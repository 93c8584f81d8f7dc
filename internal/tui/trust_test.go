package tui

import (
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
)

// /trust saves a project trust decision for future runs (pi 1.6); the hint shows the saved decision
// and this run's.
func TestTrustCommandSavesADecision(t *testing.T) {
	sess := newTestSession(t, newScript(), nil)
	agent := t.TempDir()
	store := config.NewTrustStore(agent)
	u := startUI(t, sess, Options{Trust: store, ProjectTrusted: false})
	u.typeText("/trust")
	u.key(tea.KeyEnter)
	u.waitScreen("the trust picker", contains("Project trust", "→ Trust", "Do not trust", "Saved decision: none", "Current session: untrusted"))
	u.key(tea.KeyDown)
	u.key(tea.KeyDown)
	u.key(tea.KeyEnter) // "Do not trust"
	u.waitAll("the status", contains("Saved trust decision: untrusted. Restart pi for this to take effect."))
	cwd := config.CanonicalPath(sess.Store().Cwd())
	data, err := os.ReadFile(filepath.Join(agent, "trust.json"))
	if err != nil || string(data) != "{\n  \""+cwd+"\": false\n}\n" {
		t.Fatalf("trust.json %q %v", data, err)
	}
	u.typeText("/trust")
	u.key(tea.KeyEnter)
	u.waitScreen("the saved decision marked", contains("→ Do not trust ✓", "Saved decision: untrusted ("+cwd+")"))
	u.key(tea.KeyEsc)
}
