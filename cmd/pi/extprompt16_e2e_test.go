package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// pi's prompt-customizer.ts edits event.systemPromptOptions.sections in before_agent_start (a
// <tool_guidance> section built from the selected tools and skills). pi 1.6.0 itself and pi-go, each
// in the interop's workspace with the example loaded, must send the same system prompt (pi's <docs>
// section aside, which pi-go does not have) and the same tools.
func TestPromptCustomizerAsPi16(t *testing.T) {
	pi, why := findPi16()
	if why != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	ext := filepath.Join(pi.pkg, "examples", "extensions", "prompt-customizer.ts")
	run := func(argv ...string) []string {
		w := newPi16Workspace(t)
		w.write("proj/AGENTS.md", "Use tabs.\n")
		w.write("agent/skills/release/SKILL.md", "---\nname: release\ndescription: Cut a release.\n---\nSteps.\n")
		w.script(scenario.Spec{Text: "Hello."}, scenario.Spec{Text: "Again."})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "--model", "mock/mock-model", "-e", ext, "-p", "hi", "again")...)
		cmd.Dir = w.proj
		cmd.Env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + w.agent,
			"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "TERM=dumb",
			"PI_GO_NODE=" + pi.node, "PI_PACKAGE_DIR=" + pi.pkg}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("%s: %v\n%s%s", argv[0], err, out, errb.String())
		}
		var out []string // the workspaces' own paths made one
		for _, body := range w.requests() {
			out = append(out, strings.ReplaceAll(body, w.root, "/ROOT"))
		}
		return out
	}
	pis := run(pi.node, filepath.Join(pi.pkg, "dist", "cli.js"))
	ours := run(piBinary)
	for i, body := range pis {
		if !strings.Contains(body, `<tool_guidance>\n- Use `+"`read`") {
			t.Fatalf("pi's request %d has no tool_guidance section: %s", i+1, body)
		}
	}
	compareRequests(t, ours, pis)
}
