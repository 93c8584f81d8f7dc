package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// startPiExamplesInTmux starts pi-go's TUI on the mock model with pi 1.6.0's examples named (paths
// under examples/extensions, or absolute) and waits for its editor.
func startPiExamplesInTmux(t *testing.T, p *project, examples ...string) *tmuxPane {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	args := []string{"--model", "mock/mock-model", "--tui-mode", "regular"}
	for _, name := range examples {
		if !filepath.IsAbs(name) {
			name = filepath.Join(pi.pkg, "examples", "extensions", name)
		}
		args = append(args, "-e", name)
	}
	pane := startTmuxPi(t, p, args...)
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "mock-model") })
	return pane
}

// awaitExit waits for pi-go to end (its tmux session with it).
func (p *tmuxPane) awaitExit(what string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for exec.Command("tmux", "-L", p.socket, "has-session", "-t", "pi").Run() == nil {
		if time.Now().After(deadline) {
			p.t.Fatalf("pi-go did not exit %s:\n%s", what, p.tmux("capture-pane", "-p", "-t", "pi"))
		}
		<-tick.C
	}
}

// shutdown-command: a tool's ctx.shutdown() in the TUI lets the run finish (the model gets the
// tool's result and answers), then pi-go quits, the extensions getting session_shutdown.
func TestPiExampleShutdownToolInTheTerminal(t *testing.T) {
	p := mockProject(t)
	marker, marks := shutdownMarker(t, p)
	pane := startPiExamplesInTmux(t, p, "shutdown-command.ts", marker)
	p.server.Enqueue(
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "f", Name: "finish_and_exit", Arguments: `{}`}),
		openaitest.TextReply("mock-model", "All done."))
	pane.keys("-l", "finish up")
	pane.keys("Enter")
	pane.awaitExit("after the run")
	if n := len(p.server.Requests()); n != 2 {
		t.Errorf("%d requests: the run did not finish before the exit", n)
	}
	checkToolResults(t, p.server, 2, map[string]string{"f": "Shutdown requested. Exiting after this response."})
	if got, _ := os.ReadFile(marks); string(got) != "session_start startup\nsession_shutdown quit\n" {
		t.Errorf("the extension saw %q", got)
	}
}
