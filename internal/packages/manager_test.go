package packages

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/packages/npmtest"
)

// needTool skips without the tool unless PI_GO_REQUIRE_NODE=1 (the Makefile's deps install them).
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatalf("%s is required (PI_GO_REQUIRE_NODE=1): %v", name, err)
		}
		t.Skipf("%s not found: install it to run the package manager's %s tests", name, name)
	}
}

type fixture struct {
	t    *testing.T
	root string
	dirs Dirs
	m    *Manager
	out  strings.Builder
}

func newFixture(t *testing.T, env ...string) *fixture {
	root := t.TempDir()
	f := &fixture{t: t, root: root}
	f.dirs = Dirs{AgentDir: filepath.Join(root, "agent"), Cwd: filepath.Join(root, "proj"), Home: root}
	for _, d := range []string{f.dirs.AgentDir, f.dirs.Cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	f.m = &Manager{Dirs: f.dirs, Settings: config.LoadSettings(f.dirs.AgentDir, f.dirs.Cwd), ProjectTrusted: true,
		Stdout: &f.out, Stderr: &f.out, Env: append(base, env...)}
	return f
}

func (f *fixture) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	f.t.Cleanup(cancel)
	return ctx
}

// settingsPackages is the "packages" list of a settings file as written.
func (f *fixture) settingsPackages(path string) []any {
	f.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		f.t.Fatalf("%s: %v", path, err)
	}
	list, _ := s["packages"].([]any)
	return list
}

func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = f.m.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// A local path is checked, written to settings relative to the settings file, and keeps every other
// field of the file; installing it again changes nothing; removing it removes only its entry.
func TestInstallAndRemoveALocalPackage(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.dirs.Cwd, map[string]string{"tools/extensions/hello.ts": ""})
	settings := filepath.Join(f.dirs.AgentDir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"theme":"dark","unknownKey":{"a":1},"packages":[{"source":"npm:other","skills":[]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f.m.Settings = config.LoadSettings(f.dirs.AgentDir, f.dirs.Cwd)
	for range 2 {
		if err := f.m.Install(f.ctx(), "./tools", false); err != nil {
			t.Fatal(err)
		}
	}
	got := f.settingsPackages(settings)
	if len(got) != 2 || got[1] != "../proj/tools" {
		t.Fatalf("packages = %v", got)
	}
	data, _ := os.ReadFile(settings)
	if !strings.Contains(string(data), `"unknownKey": {`) || !strings.Contains(string(data), `"skills": []`) {
		t.Errorf("other fields were not kept:\n%s", data)
	}
	list := f.m.List()
	if len(list) != 2 || !list[0].Filtered || list[1].Path != filepath.Join(f.dirs.Cwd, "tools") {
		t.Errorf("list = %+v", list)
	}
	g, pr := f.m.Settings.PackageEntries()
	pkgs := Configured(f.dirs, g, pr)
	if ext := pkgs[1].Resources(Extensions, f.root); len(ext) != 1 || filepath.Base(ext[0]) != "hello.ts" {
		t.Errorf("extensions = %v", ext)
	}
	if removed, err := f.m.Remove(f.ctx(), "./tools", false); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if got := f.settingsPackages(settings); len(got) != 1 {
		t.Errorf("after remove: %v", got)
	}
	if removed, _ := f.m.Remove(f.ctx(), "./tools", false); removed {
		t.Error("a second remove matched")
	}
	if err := f.m.Install(f.ctx(), "./missing", false); err == nil || !strings.Contains(err.Error(), "Path does not exist: "+filepath.Join(f.dirs.Cwd, "missing")) {
		t.Errorf("missing path: %v", err)
	}
}

// Bad sources and missing tools are named in the error, and nothing is written.
func TestInstallErrorsNameWhatFailed(t *testing.T) {
	f := newFixture(t)
	f.m.Env = []string{"PATH=" + t.TempDir(), "HOME=" + f.root}
	cases := map[string]string{
		"npm:@scope/pkg":       "npm is not installed or not on PATH",
		"git:github.com/u/r":   "git is not installed or not on PATH",
		"git:nohost/r":         `invalid git source "git:nohost/r"`,
		"https://github.com/u": `invalid git source "https://github.com/u"`,
	}
	for src, want := range cases {
		if err := f.m.Install(f.ctx(), src, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dirs.AgentDir, "settings.json")); err == nil {
		t.Error("a failed install wrote settings")
	}
	if _, err := os.Stat(filepath.Join(f.dirs.AgentDir, "git", "github.com")); err == nil {
		t.Error("a failed clone left its directory")
	}
	f.m.ProjectTrusted = false
	if err := f.m.Install(f.ctx(), "./x", true); err != ErrUntrusted {
		t.Errorf("untrusted -l: %v", err)
	}
}

// A git package is cloned into the git directory at its ref; update moves an unpinned checkout to
// the remote's new commit and reports it; remove deletes the checkout and the empty directories
// above it. The remote is a local repository that git reaches through url.insteadOf, so the
// https source needs no network.
func TestGitPackageInstallUpdateRemove(t *testing.T) {
	needTool(t, "git")
	remotes := t.TempDir()
	f := newFixture(t, "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=url."+filepath.ToSlash(remotes)+"/.insteadOf", "GIT_CONFIG_VALUE_0=https://git.example.test/")
	repo := filepath.Join(remotes, "u", "r")
	writeFiles(t, repo, map[string]string{"extensions/one.ts": "", "prompts/p.md": "hi"})
	f.git(repo, "init", "-q", "-b", "main")
	f.git(repo, "add", ".")
	f.git(repo, "commit", "-q", "-m", "one")
	f.git(repo, "tag", "v1")
	first := f.git(repo, "rev-parse", "HEAD")

	if err := f.m.Install(f.ctx(), "git:git.example.test/u/r@v1", false); err != nil {
		t.Fatalf("%v\n%s", err, f.out.String())
	}
	dir := filepath.Join(f.dirs.AgentDir, "git", "git.example.test", "u", "r")
	if head := f.git(dir, "rev-parse", "HEAD"); head != first {
		t.Errorf("checkout at %s, want %s", head, first)
	}
	if data, _ := os.ReadFile(filepath.Join(f.dirs.AgentDir, "git", ".gitignore")); string(data) != "*\n!.gitignore\n" {
		t.Errorf(".gitignore = %q", data)
	}
	// The same package without a ref replaces the entry (one identity) and follows main.
	if err := f.m.Install(f.ctx(), "https://git.example.test/u/r", false); err != nil {
		t.Fatal(err)
	}
	if got := f.settingsPackages(filepath.Join(f.dirs.AgentDir, "settings.json")); len(got) != 1 || got[0] != "https://git.example.test/u/r" {
		t.Fatalf("packages = %v", got)
	}
	writeFiles(t, repo, map[string]string{"extensions/two.ts": ""})
	f.git(repo, "add", ".")
	f.git(repo, "commit", "-q", "-m", "two")
	second := f.git(repo, "rev-parse", "HEAD")
	updated, err := f.m.Update(f.ctx(), "")
	if err != nil {
		t.Fatalf("%v\n%s", err, f.out.String())
	}
	if len(updated) != 1 || updated[0].String() != "https://git.example.test/u/r "+first[:7]+" -> "+second[:7] {
		t.Errorf("updated = %v", updated)
	}
	if _, err := os.Stat(filepath.Join(dir, "extensions", "two.ts")); err != nil {
		t.Error("update did not bring the new file")
	}
	if again, err := f.m.Update(f.ctx(), "git:git.example.test/u/r"); err != nil || len(again) != 0 {
		t.Errorf("second update: %v %v", again, err)
	}
	if _, err := f.m.Update(f.ctx(), "npm:nothing"); err == nil || err.Error() != "No matching package found for npm:nothing" {
		t.Errorf("unknown update: %v", err)
	}
	if _, err := f.m.Update(f.ctx(), "git.example.test/u/r"); err == nil || !strings.Contains(err.Error(), "Did you mean https://git.example.test/u/r?") {
		t.Errorf("shorthand update: %v", err)
	}
	if removed, err := f.m.Remove(f.ctx(), "git:git.example.test/u/r", false); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(f.dirs.AgentDir, "git", "git.example.test")); !os.IsNotExist(err) {
		t.Errorf("empty parents left: %v", err)
	}
}

// An npm package installs from the registry into ~/.pi/agent/npm (or the project's .pi/npm with
// -l); update moves an unpinned one to the newest version; remove uninstalls it. The registry is a
// loopback server.
func TestNpmPackageInstallUpdateRemove(t *testing.T) {
	needTool(t, "npm")
	reg := npmtest.Start(t)
	reg.Publish(t, "@acme/pi-tools", "1.0.0", map[string]string{
		"package.json":      `{"name":"@acme/pi-tools","version":"1.0.0","pi":{"extensions":["./ext.ts"]}}`,
		"ext.ts":            "export default function () {}",
		"skills/x/SKILL.md": "---\nname: x\ndescription: d\n---\n",
	})
	f := newFixture(t, reg.Env()...)
	if err := f.m.Install(f.ctx(), "npm:@acme/pi-tools", false); err != nil {
		t.Fatalf("%v\n%s", err, f.out.String())
	}
	dir := filepath.Join(f.dirs.AgentDir, "npm", "node_modules", "@acme", "pi-tools")
	if npmVersion(dir) != "1.0.0" {
		t.Fatalf("not installed at %s:\n%s", dir, f.out.String())
	}
	g, pr := f.m.Settings.PackageEntries()
	pkgs := Configured(f.dirs, g, pr)
	if ext := pkgs[0].Resources(Extensions, f.root); len(ext) != 1 || ext[0] != filepath.Join(dir, "ext.ts") {
		t.Errorf("extensions = %v", ext)
	}
	if sk := pkgs[0].Resources(Skills, f.root); len(sk) != 0 {
		t.Errorf("a manifest without skills still gave %v", sk)
	}

	reg.Publish(t, "@acme/pi-tools", "1.1.0", map[string]string{"ext.ts": ""})
	updated, err := f.m.Update(f.ctx(), "npm:@acme/pi-tools")
	if err != nil {
		t.Fatalf("%v\n%s", err, f.out.String())
	}
	if len(updated) != 1 || updated[0].String() != "npm:@acme/pi-tools 1.0.0 -> 1.1.0" {
		t.Errorf("updated = %v", updated)
	}

	if err := f.m.Install(f.ctx(), "npm:@acme/pi-tools@1.0.0", true); err != nil {
		t.Fatalf("-l: %v\n%s", err, f.out.String())
	}
	if v := npmVersion(filepath.Join(f.dirs.Cwd, ".pi", "npm", "node_modules", "@acme", "pi-tools")); v != "1.0.0" {
		t.Errorf("project install at version %q", v)
	}
	if got := f.settingsPackages(filepath.Join(f.dirs.Cwd, ".pi", "settings.json")); len(got) != 1 || got[0] != "npm:@acme/pi-tools@1.0.0" {
		t.Errorf("project packages = %v", got)
	}
	if removed, err := f.m.Remove(f.ctx(), "npm:@acme/pi-tools", false); err != nil || !removed {
		t.Fatalf("remove: %v %v\n%s", removed, err, f.out.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("still installed: %v", err)
	}
	if err := f.m.Install(f.ctx(), "npm:@acme/missing", false); err == nil || !strings.Contains(err.Error(), "npm install @acme/missing") {
		t.Errorf("missing package: %v", err)
	}
}
