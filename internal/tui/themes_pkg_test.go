package tui

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
)

// The themes of npm and git packages are read where pi installs them, the user's under the agent
// directory and the project's under its .pi, with the settings entry's filter applied.
func TestPackageThemesWherePiInstallsThem(t *testing.T) {
	root := t.TempDir()
	agent, cwd, home := filepath.Join(root, "agent"), filepath.Join(root, "proj"), filepath.Join(root, "home")
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, "settings.json"), `{"packages": ["npm:@y/themes@2.0.0", "git:github.com/u/r@v1",
		{"source": "npm:quiet", "themes": []}, "npm:absent"]}`)
	write(filepath.Join(agent, "npm", "node_modules", "@y", "themes", "themes", "n.json"), "{}")
	write(filepath.Join(agent, "git", "github.com", "u", "r", "package.json"), `{"pi": {"themes": ["res"]}}`)
	write(filepath.Join(agent, "git", "github.com", "u", "r", "res", "g.json"), "{}")
	write(filepath.Join(agent, "npm", "node_modules", "quiet", "themes", "q.json"), "{}")
	write(filepath.Join(cwd, ".pi", "settings.json"), `{"packages": ["npm:pt"]}`)
	write(filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "p.json"), "{}")

	opts := Options{AgentDir: agent, Settings: config.LoadSettings(agent, cwd)}
	global, project := opts.packageThemes(cwd, home)
	base := func(files []string) []string {
		var out []string
		for _, f := range files {
			out = append(out, filepath.Base(f))
		}
		return out
	}
	if got, want := base(global), []string{"n.json", "g.json"}; !slices.Equal(got, want) {
		t.Errorf("user package themes = %v, want %v", got, want)
	}
	if got, want := base(project), []string{"p.json"}; !slices.Equal(got, want) {
		t.Errorf("project package themes = %v, want %v", got, want)
	}
}
