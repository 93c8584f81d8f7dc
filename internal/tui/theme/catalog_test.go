package theme

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	agent, cwd, home := filepath.Join(root, "agent"), filepath.Join(root, "proj"), filepath.Join(root, "home")
	writeTheme(t, filepath.Join(agent, "themes", "mine.json"), "mine", nil)
	writeTheme(t, filepath.Join(agent, "themes", "dup.json"), "shared", nil)
	writeTheme(t, filepath.Join(agent, "themes", "broken.json"), "broken", func(d map[string]any) { delete(colorsOf(d), "accent") })
	writeTheme(t, filepath.Join(agent, "themes", "dark.json"), "dark", nil) // the built-in wins
	writeTheme(t, filepath.Join(cwd, ".pi", "themes", "proj.json"), "proj", nil)
	writeTheme(t, filepath.Join(cwd, ".pi", "themes", "shared.json"), "shared", nil) // the project wins
	writeTheme(t, filepath.Join(home, "extra", "extra.json"), "extra", nil)
	writeTheme(t, filepath.Join(agent, "pkg", "themes", "pkgtheme.json"), "pkgtheme", nil)
	writeTheme(t, filepath.Join(agent, "pkg2", "res", "a.json"), "manifest-theme", nil)
	if err := os.WriteFile(filepath.Join(agent, "pkg2", "package.json"), []byte(`{"pi":{"themes":["./res/*.json"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	// Packages from npm and git, where pi installs them: the user's under the agent directory, the
	// project's under its .pi.
	writeTheme(t, filepath.Join(agent, "npm", "node_modules", "@y", "themes", "themes", "n.json"), "npm-theme", nil)
	writeTheme(t, filepath.Join(agent, "git", "github.com", "u", "r", "res", "g.json"), "git-theme", nil)
	if err := os.WriteFile(filepath.Join(agent, "git", "github.com", "u", "r", "package.json"), []byte(`{"pi":{"themes":["res"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTheme(t, filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "p.json"), "project-npm-theme", nil)

	src := Sources{AgentDir: agent, Cwd: cwd, Home: home, GlobalThemes: []string{"~/extra", "missing.json"},
		GlobalPackages:  []string{"./pkg", "pkg2", "npm:@x/themes", "npm:@y/themes@2.0.0", "git:github.com/u/r@v1", "npm:../x"},
		ProjectPackages: []string{"npm:pt"}}
	untrusted := Discover(src)
	if slices.Contains(untrusted.Names(), "proj") {
		t.Errorf("an untrusted project's theme loaded: %v", untrusted.Names())
	}
	src.ProjectTrusted = true
	c := Discover(src)
	want := []string{"system", "dark", "extra", "git-theme", "light", "manifest-theme", "mine", "npm-theme", "pkgtheme", "proj", "project-npm-theme", "shared"}
	if got := c.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	shared, err := c.Lookup("shared")
	if err != nil || !strings.Contains(shared.Path, ".pi") {
		t.Errorf("shared = %v, %v: the project's theme should win", shared, err)
	}
	var diags []string
	for _, d := range c.Diagnostics {
		diags = append(diags, d.Error())
	}
	all := strings.Join(diags, "\n")
	for _, w := range []string{"broken.json: colors: missing required tokens accent", "missing.json does not exist",
		"dup.json: name \"shared\" collides with", "dark.json: name \"dark\" collides with the built-in theme",
		"package npm:@x/themes is not installed (looked in " + filepath.Join(agent, "npm", "node_modules", "@x", "themes") + ")",
		"package npm:../x: not a source pi can install"} {
		if !strings.Contains(all, w) {
			t.Errorf("diagnostics do not say %q:\n%s", w, all)
		}
	}

	th, err := c.Select("mine", "dark", termenv.TrueColor)
	if err != nil || th.Name() != "mine" {
		t.Errorf("Select(mine) = %v, %v", th.Name(), err)
	}
	th, err = c.Select("light/mine", "light", termenv.TrueColor)
	if err != nil || th.Name() != "light" {
		t.Errorf("Select(light/mine) on a light terminal = %v, %v", th.Name(), err)
	}
	th, err = c.Select("", "light", termenv.TrueColor)
	if err != nil || th.Name() != "light" || th.IsDark() {
		t.Errorf("system on a light terminal = %v, %v", th.Name(), err)
	}
	th, err = c.Select("nope", "dark", termenv.TrueColor)
	if err == nil || th.Name() != "dark" {
		t.Errorf("Select(nope) = %v, %v: want the default theme and an error", th.Name(), err)
	}
	// A file made invalid after discovery: the default theme, and the error names the file and key.
	writeTheme(t, filepath.Join(agent, "themes", "mine.json"), "mine", func(d map[string]any) { colorsOf(d)["accent"] = "#zzz" })
	th, err = c.Select("mine", "dark", termenv.TrueColor)
	if err == nil || th.Name() != "dark" || !strings.Contains(err.Error(), "mine.json: colors.accent") {
		t.Errorf("Select(invalid mine) = %v, %v", th.Name(), err)
	}
}
