package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/packages/npmtest"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// `pi install` of a local package adds it to settings and its resources load: its prompt template
// expands and its extension (the Python protocol extension, listed in the package's manifest)
// blocks a write; `pi list` shows it where it is; `pi remove` takes it out again.
func TestInstallALocalPackageAndUseIt(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the package's Python extension cannot run")
	}
	p := newProject(t)
	guard, err := os.ReadFile("../../testdata/extensions/python/guard.py")
	if err != nil {
		t.Fatal(err)
	}
	p.write("mypkg/package.json", `{"name":"mypkg","pi":{"extensions":["./guard.py"],"prompts":["./prompts"]}}`)
	p.write("mypkg/prompts/protect.md", "---\ndescription: Try a write\n---\nWrite $1 please.")
	if err := os.WriteFile(filepath.Join(p.dir, "mypkg", "guard.py"), guard, 0o755); err != nil {
		t.Fatal(err)
	}

	r := p.run("", "install", "./mypkg")
	if r.code != 0 || r.stdout != "Installing ./mypkg...\nInstalled ./mypkg\n" {
		t.Fatalf("install: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	r = p.run("", "list")
	if want := "User packages:\n  ../proj/mypkg\n    " + filepath.Join(p.dir, "mypkg") + "\n"; r.code != 0 || r.stdout != want {
		t.Errorf("list: exit %d stdout %q, want %q", r.code, r.stdout, want)
	}

	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "write", Arguments: `{"path":"x.env","content":"X=1"}`}),
		openaitest.TextReply("test-model", "Blocked."),
	)
	r = p.run("", append(p.baseArgs(), "--no-session", "-p", "/protect x.env")...)
	if r.code != 0 || r.stdout != "Blocked.\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	msgs := requestMessages(t, p.server, 1)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "Write x.env please." {
		t.Errorf("the package's template sent %q", got)
	}
	checkToolResults(t, p.server, 2, map[string]string{"c1": "python-guard: .env files are protected"})

	r = p.run("", "remove", "./mypkg")
	if r.code != 0 || r.stdout != "Removing ./mypkg...\nRemoved ./mypkg\n" {
		t.Fatalf("remove: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if r = p.run("", "list"); r.stdout != "No packages installed.\n" {
		t.Errorf("list after remove: %q", r.stdout)
	}
	if r = p.run("", "remove", "./mypkg"); r.code != 1 || r.stderr != "No matching package found for ./mypkg\n" {
		t.Errorf("second remove: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// An npm package installs from the registry (a loopback one here) into ~/.pi/agent/npm and its
// prompt loads; `pi update` reports the version change as pi does; -l installs into the project.
func TestInstallAndUpdateAnNpmPackage(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal("npm is required (PI_GO_REQUIRE_NODE=1)")
		}
		t.Skip("npm not found: install Node.js with npm to run the npm package test")
	}
	reg := npmtest.Start(t)
	reg.Publish(t, "@acme/prompts", "1.0.0", map[string]string{"prompts/greet.md": "Say hello to $1."})
	p := newProject(t)
	p.env = reg.Env()

	r := p.run("", "install", "npm:@acme/prompts")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Installing npm:@acme/prompts...\n") || !strings.HasSuffix(r.stdout, "Installed npm:@acme/prompts\n") {
		t.Fatalf("install: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(p.agentDir, "npm", "node_modules", "@acme", "prompts", "prompts", "greet.md")); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	if r = p.run("", append(p.baseArgs(), "--no-session", "-p", "/greet Ann")...); r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	msgs := requestMessages(t, p.server, 1)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "Say hello to Ann." {
		t.Errorf("the package's template sent %q", got)
	}

	if r = p.run("", "update", "--extensions"); r.code != 0 || !strings.HasSuffix(r.stdout, "Packages are already up to date\n") {
		t.Errorf("update with nothing new: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reg.Publish(t, "@acme/prompts", "1.1.0", map[string]string{"prompts/greet.md": "Greet $1."})
	if r = p.run("", "update", "npm:@acme/prompts"); r.code != 0 || !strings.HasSuffix(r.stdout, "Updated 1 package:\n  npm:@acme/prompts 1.0.0 -> 1.1.0\n") {
		t.Errorf("update: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if r = p.run("", "install", "-l", "npm:@acme/prompts@1.0.0"); r.code != 0 {
		t.Fatalf("install -l: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	// The project now has a .pi directory, so (as in pi) its packages count once it is trusted.
	r = p.run("", "list", "--approve")
	want := "User packages:\n  npm:@acme/prompts\n    " + filepath.Join(p.agentDir, "npm", "node_modules", "@acme", "prompts") +
		"\n\nProject packages:\n  npm:@acme/prompts@1.0.0\n    " + filepath.Join(p.dir, ".pi", "npm", "node_modules", "@acme", "prompts") + "\n"
	if r.stdout != want {
		t.Errorf("list:\n%s\nwant\n%s", r.stdout, want)
	}
}

// Usage errors are pi's lines and exit 1 before anything runs.
func TestPackageCommandUsageErrors(t *testing.T) {
	p := newProject(t)
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"install"}, "Missing install source.\nUsage: pi install <source> [-l] [--approve|--no-approve]\n"},
		{[]string{"list", "-l"}, "Unknown option -l for \"list\".\nUse \"pi --help\" or \"pi list [--approve|--no-approve]\".\n"},
		{[]string{"remove", "a", "b"}, "Unexpected argument b.\nUsage: pi remove <source> [-l] [--approve|--no-approve]\n"},
		{[]string{"update", "--all", "x"}, "--all cannot be combined with a positional source\n"},
		{[]string{"install", "git:nohost/r"}, "Error: invalid git source \"git:nohost/r\""},
		{[]string{"update", "npm:nothing"}, "Error: No matching package found for npm:nothing\n"},
	}
	for _, c := range cases {
		r := p.run("", c.args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, c.stderr) {
			t.Errorf("pi %s: exit %d stderr %q, want prefix %q", strings.Join(c.args, " "), r.code, r.stderr, c.stderr)
		}
	}
	if r := p.run("", "install", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Install a package and add it to settings.") {
		t.Errorf("help: %d %q", r.code, r.stdout)
	}
}

// -e npm:<pkg> installs the package into the -e cache (not into settings) and loads its extension;
// the next start uses the cache.
func TestExtensionFlagInstallsAnNpmPackage(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal("npm is required (PI_GO_REQUIRE_NODE=1)")
		}
		t.Skip("npm not found: install Node.js with npm to run the npm package test")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the package's Python extension cannot run")
	}
	guard, err := os.ReadFile("../../testdata/extensions/python/guard.py")
	if err != nil {
		t.Fatal(err)
	}
	reg := npmtest.Start(t)
	reg.Publish(t, "@acme/guard", "1.0.0", map[string]string{
		"package.json": `{"name":"@acme/guard","version":"1.0.0","pi":{"extensions":["./guard.py"]}}`,
		"guard.py":     string(guard),
	})
	p := newProject(t)
	p.env = reg.Env()
	for run := 1; run <= 2; run++ {
		p.server.Enqueue(
			openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "write", Arguments: `{"path":"x.env","content":"X=1"}`}),
			openaitest.TextReply("test-model", "Blocked."),
		)
		r := p.run("", append(p.baseArgs(), "-e", "npm:@acme/guard", "--no-session", "-p", "go")...)
		if r.code != 0 || r.stdout != "Blocked.\n" {
			t.Fatalf("run %d: exit %d stdout %q stderr %s", run, r.code, r.stdout, r.stderr)
		}
		checkToolResults(t, p.server, 2*run, map[string]string{"c1": "python-guard: .env files are protected"})
	}
	if _, err := os.Stat(filepath.Join(p.agentDir, "settings.json")); err == nil {
		t.Error("-e wrote settings")
	}
	matches, _ := filepath.Glob(filepath.Join(p.agentDir, "tmp", "extensions", "npm", "*", "node_modules", "@acme", "guard", "guard.py"))
	if len(matches) != 1 {
		t.Errorf("cache: %v", matches)
	}
}

// A configured package that is not installed is one warning naming the command that installs it;
// the run goes on.
func TestMissingPackageIsAWarning(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"packages":["npm:@acme/absent"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	r := p.run("", append(p.baseArgs(), "--no-session", "-p", "hi")...)
	want := "Package npm:@acme/absent is not installed; its resources are skipped (run: pi install npm:@acme/absent)"
	if r.code != 0 || r.stdout != "ok\n" || strings.Count(r.stderr, want) != 1 {
		t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
