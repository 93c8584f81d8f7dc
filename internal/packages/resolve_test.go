package packages

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func rels(root string, paths []string) []string {
	var out []string
	for _, p := range paths {
		r, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(r))
	}
	slices.Sort(out)
	return out
}

// A package's resources come from its "pi" manifest (paths, globs and ! patterns) when it lists
// any, else from its conventional directories; a settings filter narrows them ([] is none, an
// omitted kind is all).
func TestPackageResourcesFromManifestDirectoriesAndFilters(t *testing.T) {
	root := t.TempDir()
	conventional := filepath.Join(root, "conv")
	writeFiles(t, conventional, map[string]string{
		"package.json":            `{"name":"conv","pi":{"changelogPath":"x"}}`,
		"extensions/a.ts":         "",
		"extensions/sub/index.ts": "",
		"extensions/notes.md":     "",
		"skills/pdf/SKILL.md":     "---\nname: pdf\n---\n",
		"prompts/review.md":       "",
		"prompts/nested/deep.md":  "",
		"themes/dark.json":        "{}",
		"node_modules/x/index.ts": "",
		"extensions/.hidden/x.ts": "",
	})
	manifest := filepath.Join(root, "man")
	writeFiles(t, manifest, map[string]string{
		"package.json":          `{"name":"man","pi":{"extensions":["./src/main.ts"],"prompts":["./res/prompts/*.md","!**/draft.md"]}}`,
		"src/main.ts":           "",
		"res/prompts/one.md":    "",
		"res/prompts/draft.md":  "",
		"extensions/ignored.ts": "",
		"skills/s/SKILL.md":     "",
	})
	plain := filepath.Join(root, "plain")
	writeFiles(t, plain, map[string]string{"index.ts": ""})

	d := Dirs{AgentDir: filepath.Join(root, "agent"), Cwd: root, Home: root}
	pkgs := Configured(d, []config.PackageSource{{Source: conventional}, {Source: manifest}, {Source: plain}}, nil)
	if len(pkgs) != 3 {
		t.Fatalf("got %d packages", len(pkgs))
	}
	check := func(p Package, kind string, want ...string) {
		t.Helper()
		if got := rels(p.Root, p.Resources(kind, root)); !slices.Equal(got, want) {
			t.Errorf("%s %s: got %q, want %q", filepath.Base(p.Root), kind, got, want)
		}
	}
	check(pkgs[0], Extensions, "extensions/a.ts", "extensions/sub/index.ts")
	check(pkgs[0], Skills, "skills/pdf/SKILL.md")
	check(pkgs[0], Prompts, "prompts/nested/deep.md", "prompts/review.md")
	check(pkgs[0], Themes, "themes/dark.json")
	check(pkgs[1], Extensions, "src/main.ts")
	check(pkgs[1], Prompts, "res/prompts/one.md")
	check(pkgs[1], Skills) // a manifest that lists resources is the whole list
	check(pkgs[2], Extensions, ".")

	filtered := Configured(d, []config.PackageSource{{Source: conventional, Filter: &config.PackageFilter{
		Source: conventional, Extensions: []string{"!**/sub/**"}, Prompts: []string{}, Skills: nil,
	}}}, nil)[0]
	check(filtered, Extensions, "extensions/a.ts")
	check(filtered, Prompts)
	check(filtered, Skills, "skills/pdf/SKILL.md")
}

// A project entry replaces the user's entry of the same package; a relative local source resolves
// from the directory of the settings file that names it; npm and git sources point at the scope's
// install directories.
func TestConfiguredPackagesScopesAndLocations(t *testing.T) {
	root := t.TempDir()
	d := Dirs{AgentDir: filepath.Join(root, "agent"), Cwd: filepath.Join(root, "proj"), Home: root}
	writeFiles(t, d.AgentDir, map[string]string{"mine/index.ts": "", "npm/node_modules/@s/tool/package.json": "{}"})
	writeFiles(t, d.Cwd, map[string]string{".pi/npm/node_modules/@s/tool/package.json": "{}"})
	pkgs := Configured(d,
		[]config.PackageSource{{Source: "npm:@s/tool@1.0.0"}, {Source: "mine"}, {Source: "git:github.com/u/r"}},
		[]config.PackageSource{{Source: "npm:@s/tool"}})
	var got []string
	for _, p := range pkgs {
		got = append(got, string(p.Scope)+" "+p.Source+" "+strings.TrimPrefix(p.Root, root))
	}
	want := []string{
		"project npm:@s/tool /proj/.pi/npm/node_modules/@s/tool",
		"user mine /agent/mine",
		"user git:github.com/u/r ", // not installed
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p, _ := d.InstallPath(Parse("git:github.com/u/r@v2"), Project); p != filepath.Join(d.Cwd, ".pi/git/github.com/u/r") {
		t.Errorf("project git path %s", p)
	}
}
