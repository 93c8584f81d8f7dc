package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// In the interactive mode a project_trust handler's dialogs are asked on the terminal before the
// session starts, where pi asks them (its startup selector and input); the handler's decision
// replaces the built-in trust prompt.
func TestProjectTrustDialogsInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	// An executable's ctx.ui.confirm: a Yes/No question under its title and message.
	t.Run("executable confirm", func(t *testing.T) {
		p := trustProject(t)
		installTrustgate(t)(p)
		logFile := filepath.Join(t.TempDir(), "trustgate.log")
		p.env = append(p.env, "TRUSTGATE_DECISION=ask", "TRUSTGATE_LOG="+logFile)
		p.server.Enqueue(openaitest.TextReply("mock-model", "trusted answer"))
		pane := startTmuxPi(t, p, "--model", "mock/mock-model")
		pane.waitFor("the extension's question", func(s string) bool {
			return strings.Contains(s, "trustgate: trust this project?") && strings.Contains(s, p.dir) &&
				strings.Contains(s, "→ Yes") && strings.Contains(s, "  No")
		})
		pane.keys("Enter")
		screen := pane.waitFor("the session", func(s string) bool {
			return strings.Contains(s, "mock-model") && !strings.Contains(s, "trustgate: trust this project?")
		})
		if strings.Contains(screen, "Trust project folder?") || strings.Contains(screen, "not trusted") {
			t.Fatalf("the built-in prompt or the untrusted warning after the extension's yes:\n%s", screen)
		}
		pane.keys("-l", "hi")
		pane.keys("Enter")
		pane.waitFor("the answer", func(s string) bool { return strings.Contains(s, "trusted answer") })
		if system := contentText(requestMessages(t, p.server, 1)[0]["content"]); !strings.Contains(system, "Project rule: mention the README.") {
			t.Errorf("APPEND_SYSTEM.md not used:\n%s", system)
		}
		log, _ := os.ReadFile(logFile)
		if !strings.Contains(string(log), "trustgate project_trust tui true\n") || !strings.Contains(string(log), "local-gate session_start\n") {
			t.Errorf("log:\n%s", log)
		}
	})
	// pi's own example (examples/extensions/project-trust.ts) on pi 1.6.0's runner: a select, then
	// an input, then a remembered yes.
	t.Run("pi's project-trust example", func(t *testing.T) {
		pi, why := findPi16()
		if why != "" {
			if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
				t.Fatal(why)
			}
			t.Skip(why)
		}
		p := trustProject(t)
		p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
		example, err := os.ReadFile(filepath.Join(pi.pkg, "examples", "extensions", "project-trust.ts"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(p.agentDir, "extensions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.agentDir, "extensions", "project-trust.ts"), example, 0o644); err != nil {
			t.Fatal(err)
		}
		pane := startTmuxPi(t, p, "--model", "mock/mock-model")
		pane.waitFor("the example's select", func(s string) bool {
			return strings.Contains(s, "Project trust for:") && strings.Contains(s, "→ Trust and remember") &&
				strings.Contains(s, "Let built-in prompt decide")
		})
		pane.keys("Down")
		pane.waitFor("the second option", func(s string) bool { return strings.Contains(s, "→ Trust with note and remember") })
		pane.keys("Enter")
		pane.waitFor("the example's input", func(s string) bool {
			return strings.Contains(s, "Project trust note") && strings.Contains(s, "Optional note for this demo")
		})
		pane.keys("-l", "reviewed")
		pane.keys("Enter")
		screen := pane.waitFor("the session", func(s string) bool {
			return strings.Contains(s, "mock-model") && !strings.Contains(s, "Project trust note")
		})
		if strings.Contains(screen, "Trust project folder?") || strings.Contains(screen, "not trusted") {
			t.Fatalf("the built-in prompt or the untrusted warning after the extension's yes:\n%s", screen)
		}
		data, err := os.ReadFile(filepath.Join(p.agentDir, "trust.json"))
		if err != nil || string(data) != fmt.Sprintf("{\n  %q: true\n}\n", config.CanonicalPath(p.dir)) {
			t.Fatalf("trust.json %q %v", data, err)
		}
	})
}
