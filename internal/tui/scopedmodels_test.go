package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// threeModels: test-model and other-model of provider test, third-model of provider acme.
func threeModels(o *harness.Options) {
	other, third := *testModel, *testModel
	other.ID, other.Name = "other-model", "Other"
	third.ID, third.Name, third.Provider = "third-model", "Third", "acme"
	o.Models = provider.NewRegistry([]provider.Model{*testModel, other, third}, nil)
}

func TestScopedModelsFlow(t *testing.T) {
	agentDir := t.TempDir()
	path := filepath.Join(agentDir, "settings.json")
	if err := os.WriteFile(path, []byte(`{"defaultProvider": "test"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mgr := config.LoadSettings(agentDir, t.TempDir())
	sess := newTestSessionWith(t, newScript(), nil, func(o *harness.Options) {
		threeModels(o)
		o.Settings = mgr
	})
	u := startUI(t, sess, Options{Settings: mgr})
	u.submit("/scoped-models")
	u.waitScreen("the selector", contains("Model Configuration", "✓ test-model [test]", "✓ third-model [acme]", "all enabled"))

	// Enter on test-model takes it out of the scope: the other two remain, for this session only.
	u.key(tea.KeyEnter)
	u.waitScreen("two enabled", contains("2/3 enabled", "(unsaved)"))
	if got := scopedIDs(sess.ScopedModels()); !slices.Equal(got, []string{"test/other-model", "acme/third-model"}) {
		t.Fatalf("session scope = %v", got)
	}
	if _, set := readJSON(t, path)["enabledModels"]; set {
		t.Fatal("saved before Ctrl+S")
	}

	// Down to third-model, Alt+Up moves it first; Ctrl+S saves the order.
	u.key(tea.KeyDown)
	u.waitScreen("the cursor on third-model", contains("→ ✓ third-model"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	u.waitScreen("reordered", func(s string) bool {
		return strings.Index(s, "third-model") < strings.Index(s, "other-model")
	})
	if got := scopedIDs(sess.ScopedModels()); !slices.Equal(got, []string{"acme/third-model", "test/other-model"}) {
		t.Fatalf("session scope after reorder = %v", got)
	}
	u.key(tea.KeyCtrlS)
	u.waitFile(path, "enabledModels saved", func(v map[string]any) bool {
		got, _ := v["enabledModels"].([]any)
		return len(got) == 2 && got[0] == "acme/third-model" && got[1] == "test/other-model" && v["defaultProvider"] == "test"
	})
	u.waitScreen("saved", func(s string) bool { return !strings.Contains(s, "(unsaved)") })

	// Ctrl+P cycles within the scope only.
	u.key(tea.KeyEsc)
	u.waitScreen("closed", func(s string) bool { return !strings.Contains(s, "Model Configuration") })
	u.key(tea.KeyCtrlP)
	u.waitScreen("the cycle", contains("Switched to Other"))
	u.key(tea.KeyCtrlP)
	u.waitScreen("the cycle", contains("Switched to Third"))
	u.key(tea.KeyCtrlP)
	u.waitScreen("the cycle", contains("Switched to Other"))

	// Ctrl+A enables every model again; saving removes the key, as pi does.
	u.submit("/scoped-models")
	u.waitScreen("the selector", contains("Model Configuration", "2/3 enabled"))
	u.key(tea.KeyCtrlA)
	u.waitScreen("all", contains("all enabled"))
	u.key(tea.KeyCtrlS)
	u.waitFile(path, "enabledModels removed", func(v map[string]any) bool {
		_, set := v["enabledModels"]
		return !set && v["defaultProvider"] == "test"
	})
	if got := sess.ScopedModels(); len(got) != 0 {
		t.Errorf("scope after enabling all = %v", scopedIDs(got))
	}
}

func TestScopedModelsShowsSavedPatterns(t *testing.T) {
	agentDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"enabledModels": ["acme/*", "gone/model"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mgr := config.LoadSettings(agentDir, t.TempDir())
	sess := newTestSessionWith(t, newScript(), nil, func(o *harness.Options) {
		threeModels(o)
		o.Settings = mgr
	})
	u := startUI(t, sess, Options{Settings: mgr})
	u.submit("/scoped-models")
	u.waitScreen("the saved selection", contains("→ ✓ third-model [acme]", "gone/model [unavailable]", "1/3 enabled · 1 unavailable"))
}
