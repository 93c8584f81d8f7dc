package theme

import (
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
	// Theme files of packages, as internal/packages lists them: user packages rank after the user's
	// settings entries, project packages after the project's.
	writeTheme(t, filepath.Join(agent, "npm", "node_modules", "t", "themes", "n.json"), "npm-theme", nil)
	writeTheme(t, filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "p.json"), "project-npm-theme", nil)
	writeTheme(t, filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "extra.json"), "extra", nil) // the project's package wins

	src := Sources{AgentDir: agent, Cwd: cwd, Home: home, GlobalThemes: []string{"~/extra", "missing.json"},
		GlobalPackageThemes:  []string{filepath.Join(agent, "npm", "node_modules", "t", "themes", "n.json")},
		ProjectPackageThemes: []string{filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "p.json"), filepath.Join(cwd, ".pi", "npm", "node_modules", "pt", "themes", "extra.json")}}
	untrusted := Discover(src)
	if slices.Contains(untrusted.Names(), "proj") {
		t.Errorf("an untrusted project's theme loaded: %v", untrusted.Names())
	}
	src.ProjectTrusted = true
	c := Discover(src)
	want := []string{"system", "dark", "extra", "light", "mine", "npm-theme", "proj", "project-npm-theme", "shared"}
	if got := c.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if extra, err := c.Lookup("extra"); err != nil || !strings.Contains(extra.Path, filepath.Join("pt", "themes")) {
		t.Errorf("extra = %v, %v: the project package's theme should win over the user's entry", extra, err)
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
	} {
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
