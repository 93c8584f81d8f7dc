package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// trustProject is a mock project with the resources project trust gates: .pi/APPEND_SYSTEM.md and
// .pi/settings.json (whose defaultTools show whether it was read).
func trustProject(t *testing.T) *project {
	t.Helper()
	p := mockProject(t)
	p.write(".pi/APPEND_SYSTEM.md", "Project rule: mention the README.\n")
	p.write(".pi/settings.json", `{"defaultTools": ["ls"]}`+"\n")
	return p
}

// runTrusting runs one -p prompt and reports whether the project's resources reached the request.
func runTrusting(t *testing.T, p *project, args ...string) (trusted bool, r result) {
	t.Helper()
	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	n := len(p.server.Requests())
	r = p.run("", append([]string{"--model", "mock/mock-model", "--no-session", "-p", "hi"}, args...)...)
	if r.code != 0 || len(p.server.Requests()) != n+1 {
		t.Fatalf("%q: exit %d: %s", args, r.code, r.stderr)
	}
	system := contentText(requestMessages(t, p.server, n+1)[0]["content"])
	appended := strings.Contains(system, "Project rule: mention the README.")
	tools := requestTools(t, p, n+1)
	settings := slices.Equal(tools, []string{"ls"})
	if appended != settings {
		t.Fatalf("%q: APPEND_SYSTEM.md used %v, settings used %v (tools %q)", args, appended, settings, tools)
	}
	return appended, r
}

// Project trust in the modes without a prompt (pi 1.6): .pi resources count only for a trusted
// project; "ask" (the default) means no; --approve/--no-approve decide for one run, the last one
// given wins; trust.json decides for a directory and its subdirectories; the global
// defaultProjectTrust "always"/"never" decides otherwise, and a project cannot set it.
func TestProjectTrustWithoutAPrompt(t *testing.T) {
	p := trustProject(t)
	check := func(want bool, args ...string) {
		t.Helper()
		if got, r := runTrusting(t, p, args...); got != want || r.stderr != "" {
			t.Errorf("%q: trusted %v, want %v (stderr %q)", args, got, want, r.stderr)
		}
	}
	check(false)
	check(true, "--approve")
	check(true, "-a")
	check(false, "--approve", "--no-approve")
	check(true, "-na", "-a")

	trust := filepath.Join(p.agentDir, "trust.json")
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(trust, fmt.Sprintf(`{%q: true}`, config.CanonicalPath(filepath.Dir(p.dir))))
	check(true) // the parent's decision
	check(false, "--no-approve")
	write(trust, fmt.Sprintf(`{%q: true, %q: false}`, config.CanonicalPath(filepath.Dir(p.dir)), config.CanonicalPath(p.dir)))
	check(false) // its own, nearer
	if err := os.Remove(trust); err != nil {
		t.Fatal(err)
	}

	settings := filepath.Join(p.agentDir, "settings.json")
	write(settings, `{"defaultProjectTrust": "always"}`)
	check(true)
	write(settings, `{"defaultProjectTrust": "never"}`)
	check(false)
	check(true, "--approve")
	if err := os.Remove(settings); err != nil {
		t.Fatal(err)
	}

	// A project's own defaultProjectTrust is named and ignored.
	p.write(".pi/settings.json", `{"defaultTools": ["ls"], "defaultProjectTrust": "always"}`+"\n")
	trusted, r := runTrusting(t, p)
	if trusted || !strings.Contains(r.stderr, "defaultProjectTrust can only be set in") {
		t.Errorf("project defaultProjectTrust: trusted %v, stderr %q", trusted, r.stderr)
	}

	// A project without gated resources is trusted unless trust.json says otherwise (AGENTS.md
	// is never gated).
	q := mockProject(t)
	q.write("AGENTS.md", "Use tabs.\n")
	q.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	if r := q.run("", "--model", "mock/mock-model", "--no-session", "-p", "hi"); r.code != 0 ||
		!strings.Contains(contentText(requestMessages(t, q.server, 1)[0]["content"]), "Use tabs.") {
		t.Errorf("AGENTS.md: exit %d %s", r.code, r.stderr)
	}
}
