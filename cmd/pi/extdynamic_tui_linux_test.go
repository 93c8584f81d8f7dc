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

// working-indicator: ctx.ui.setWorkingIndicator replaces the working line's spinner: a static dot,
// then no indicator at all, then pi-go's spinner again.
func TestPiExampleWorkingIndicatorInTheTerminal(t *testing.T) {
	p := mockProject(t)
	pane := startPiExamplesInTmux(t, p, "working-indicator.ts")
	pane.waitFor("the status the example sets at the start", func(s string) bool {
		return strings.Contains(s, "Indicator: custom spinner")
	})
	run := func(text string) {
		pane.keys("-l", text)
		pane.keys("Enter")
	}
	workingLine := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); strings.Contains(l, "Working...") {
				return l
			}
		}
		return ""
	}
	// held runs a prompt whose answer waits until the working line satisfied want.
	held := func(name string, want func(line string) bool) {
		t.Helper()
		release := make(chan struct{})
		reply := openaitest.TextReply("mock-model", "answer "+name)
		reply.BeforeHeaders = release
		p.server.Enqueue(reply)
		run("prompt " + name)
		pane.waitFor("the working line with "+name, func(s string) bool { return want(workingLine(s)) })
		close(release)
		pane.waitFor("the answer "+name, func(s string) bool { return strings.Contains(s, "answer "+name) && workingLine(s) == "" })
	}
	run("/working-indicator dot")
	pane.waitFor("the dot mode", func(s string) bool { return strings.Contains(s, "Indicator: static dot") })
	held("dot", func(l string) bool { return strings.HasPrefix(l, "● Working...") })
	run("/working-indicator none")
	pane.waitFor("the hidden mode", func(s string) bool { return strings.Contains(s, "Indicator: hidden") })
	held("none", func(l string) bool { return strings.HasPrefix(l, "Working...") })
	run("/working-indicator reset")
	pane.waitFor("the default mode", func(s string) bool { return strings.Contains(s, "Indicator: pi default spinner") })
	held("reset", func(l string) bool {
		frame, _, _ := strings.Cut(l, " ")
		return strings.Contains("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏", frame) && frame != "" && strings.Contains(l, " Working...")
	})
}
