package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// The end-to-end test runs this test binary again, inside a tmux pane, as a small pi: the real
// openai provider against the test's scripted server, the harness, and Run on the pane's terminal.
const (
	e2eHelperEnv = "PI_TUI_E2E_HELPER"
	e2eURLEnv    = "PI_TUI_E2E_URL"
	e2eDirEnv    = "PI_TUI_E2E_DIR"
	e2eModeEnv   = "PI_TUI_E2E_MODE" // the helper's tuiMode; "" is regular
	e2eModel     = "e2e-model"
)

func TestMain(m *testing.M) {
	if os.Getenv(e2eHelperEnv) == "1" {
		os.Exit(runE2EHelper())
	}
	os.Exit(m.Run())
}

// runE2EHelper is the program the tmux pane runs.
func runE2EHelper() int {
	dir := os.Getenv(e2eDirEnv)
	model := &provider.Model{ID: e2eModel, Name: "E2E", API: provider.APIOpenAICompletions, Provider: "e2e",
		BaseURL: os.Getenv(e2eURLEnv), Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 4096}
	p := openai.New(openai.Config{})
	settings := config.InMemorySettings(config.Settings{Theme: os.Getenv(e2eThemeEnv)})
	sess, err := harness.New(harness.Options{
		Cwd:           dir,
		AgentDir:      filepath.Join(dir, "agent"),
		Settings:      settings,
		Store:         session.Create(dir, filepath.Join(dir, "sessions")),
		Stream:        p.Stream,
		Model:         model,
		ThinkingLevel: provider.ThinkingOff,
		HasAuth:       func(string) bool { return true },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer sess.Close()
	if f := os.Getenv(e2ePidEnv); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	opts := Options{Version: "e2e", SessionsDir: filepath.Join(dir, "sessions"), TUIMode: os.Getenv(e2eModeEnv),
		AgentDir: filepath.Join(dir, "agent"), Settings: settings}
	if opts.TUIMode == "" {
		opts.TUIMode = TUIModeRegular
	}
	if err := Run(context.Background(), sess, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// tmuxPane drives one tmux session on a private server.
type tmuxPane struct {
	tb     testing.TB
	socket string
}

func (p *tmuxPane) run(args ...string) string {
	p.tb.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.tb.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tmuxEnv is the test's environment without the variables that turn colour off (NO_COLOR, CLICOLOR):
// the tmux server passes its environment on to the panes, and a CI that sets NO_COLOR would make the
// themed tests see an uncoloured screen.
func tmuxEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "NO_COLOR" || name == "CLICOLOR" || name == "CLICOLOR_FORCE" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// capture returns the pane's whole history and screen, wrapped lines joined.
func (p *tmuxPane) capture() string {
	return p.run("capture-pane", "-p", "-J", "-t", "e2e", "-S", "-")
}

// screen returns what the pane shows now.
func (p *tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", "e2e") }

// waitFor polls the pane until cond holds, or fails after a deadline.
func (p *tmuxPane) waitFor(what string, get func() string, cond func(string) bool) string {
	p.tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s := get()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.tb.Fatalf("timed out waiting for %s; pane:\n%s", what, s)
		}
		<-tick.C
	}
}

func paragraph(i int) string {
	return fmt.Sprintf("Para%02d streams a paragraph long enough to wrap at eighty columns: it talks about the "+
		"terminal, the scrollback and the live region, and ends here.", i)
}

// framedAt reports whether a pane's text is laid out at width w: no line is wider than w (capture -J
// joins the rows a terminal re-wrapped, so a line of an older, wider layout would be), the only rules
// are the editor's two, as wide as the pane, and the footer is there once.
func framedAt(s string, w int) bool {
	rules := 0
	for _, l := range strings.Split(s, "\n") {
		lw := len([]rune(l))
		if lw > w {
			return false
		}
		if strings.Trim(l, "─") == "" && lw > 0 {
			if lw != w {
				return false
			}
			rules++
		}
	}
	return rules == 2 && strings.Count(s, e2eModel) == 1
}

// laidOutAt reports whether a pane's history shows the UI laid out at width w (framedAt), with the
// first fed paragraphs of the answer each exactly once.
func laidOutAt(s string, w, fed int) bool {
	if !framedAt(s, w) {
		return false
	}
	for i := 1; i <= fed; i++ {
		if strings.Count(s, fmt.Sprintf("Para%02d", i)) != 1 {
			return false
		}
	}
	return true
}

func TestTmuxStreamingResizeAndScrollback(t *testing.T) {
	// Its own tmux server, pane and directories, and mostly waiting: the tmux tests run side by side.
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	srv := openaitest.Start(t)
	const total, before = 24, 10
	c := openaitest.NewChunks(e2eModel)
	events := []string{c.Role()}
	for i := 1; i <= total; i++ {
		text := paragraph(i)
		if i < total {
			text += "\n\n"
		}
		// Several deltas per paragraph, split mid-word.
		for len(text) > 0 {
			n := min(len(text), 37)
			events = append(events, c.Text(text[:n]))
			text = text[n:]
		}
	}
	events = append(events, c.Finish("stop"), c.Usage(1200, 800, 0), openaitest.Done())
	gate := make(chan struct{})
	srv.Enqueue(openaitest.Response{Events: events, Gate: gate})

	dir := t.TempDir()
	p := &tmuxPane{tb: t, socket: fmt.Sprintf("pi-tui-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 %s=%s %s=%s %s -test.run='^$'", e2eHelperEnv, e2eURLEnv, srv.URL, e2eDirEnv, dir, os.Args[0])
	p.run("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	p.waitFor("the editor and footer", p.screen, func(s string) bool {
		return strings.Contains(s, "pi-go e2e") && strings.Contains(s, e2eModel)
	})

	p.run("send-keys", "-t", "e2e", "-l", "tell me about terminals")
	p.run("send-keys", "-t", "e2e", "Enter")
	// Let the first paragraphs through and look at the pane while the answer streams.
	feed := func(n int) {
		for i := 0; i < n; i++ {
			gate <- struct{}{}
		}
	}
	feedCount := 1
	for i := 1; i <= before; i++ {
		feedCount += (len(paragraph(i)) + 2 + 36) / 37
	}
	feed(feedCount)
	mid := p.waitFor("paragraphs streaming", p.screen, func(s string) bool {
		return strings.Contains(s, "Para10") && strings.Contains(s, "Working...")
	})
	if strings.Contains(mid, "Para11") {
		t.Fatalf("the stream went past the gate:\n%s", mid)
	}
	lines := strings.Split(strings.TrimRight(mid, "\n"), "\n")
	if len(lines) > 40 {
		t.Fatalf("pane has %d lines", len(lines))
	}

	// Resize the terminal at random while the answer streams and after it: every sequence ends in a
	// frame at its last width with the transcript laid out again (no line wider than the pane, the
	// editor's rules as wide as the pane), and nothing of an older frame left anywhere in the history.
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	fed := before
	const sequences = 50
	for seq := 0; seq < sequences; seq++ {
		var widths []int
		for range 1 + rng.IntN(3) {
			widths = append(widths, 40+rng.IntN(101))
		}
		for _, w := range widths {
			p.run("resize-window", "-t", "e2e", "-x", strconv.Itoa(w), "-y", "40")
		}
		w := widths[len(widths)-1]
		if seq < sequences/2 && fed < total-1 {
			// During the stream: one more paragraph goes out between two resizes.
			fed++
			feed((len(paragraph(fed)) + 2 + 36) / 37)
		}
		if seq == sequences/2 {
			close(gate)
			fed = total
			p.waitFor("the whole answer", p.screen, func(s string) bool {
				return strings.Contains(s, fmt.Sprintf("Para%02d", total)) && !strings.Contains(s, "Working...")
			})
		}
		p.waitFor(fmt.Sprintf("sequence %d %v laid out at %d columns", seq, widths, w), p.capture, func(s string) bool {
			return laidOutAt(s, w, fed)
		})
	}

	all := p.capture()
	for i := 1; i <= total; i++ {
		marker := fmt.Sprintf("Para%02d", i)
		if n := strings.Count(all, marker); n != 1 {
			t.Errorf("%s appears %d times in the scrollback, want once", marker, n)
		}
	}
	if n := strings.Count(all, "tell me about terminals"); n != 1 {
		t.Errorf("the prompt appears %d times, want once", n)
	}
	if n := strings.Count(all, "pi-go e2e"); n != 1 {
		t.Errorf("the header appears %d times, want once", n)
	}
	// Only the current live region may hold the editor's rules and the footer: a fragment of an older
	// frame left in the scrollback would show up here.
	rule := regexp.MustCompile(`(?m)^─+$`)
	if n := len(rule.FindAllString(all, -1)); n != 2 {
		t.Errorf("%d editor rules in the pane's history, want the 2 of the current frame", n)
	}
	if n := strings.Count(all, e2eModel); n != 1 {
		t.Errorf("the footer's model appears %d times, want once", n)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("pane while streaming at 120 columns:\n%s\npane history at the end:\n%s", mid, all)
	}
	p.run("send-keys", "-t", "e2e", "C-d")
	p.waitFor("pi to exit", func() string {
		out, _ := exec.Command("tmux", "-L", p.socket, "list-sessions").CombinedOutput()
		return string(out)
	}, func(s string) bool { return !strings.Contains(s, "e2e:") })
}

// Ctrl+Z gives the terminal back to the shell with the live region erased; fg brings the UI back
// with the editor's text.
func TestTmuxSuspendAndResume(t *testing.T) {
	// Its own tmux server, pane and directories, and mostly waiting: the tmux tests run side by side.
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is needed for job control")
	}
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	dir := t.TempDir()
	p := &tmuxPane{tb: t, socket: fmt.Sprintf("pi-tui-e2e-susp-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", "env PS1='$ ' bash --norc --noprofile")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	p.waitFor("the shell", p.screen, contains("$"))
	p.run("send-keys", "-t", "e2e", "-l", fmt.Sprintf("env %s=1 %s=http://127.0.0.1:1/v1 %s=%s %s -test.run='^$'",
		e2eHelperEnv, e2eURLEnv, e2eDirEnv, dir, os.Args[0]))
	p.run("send-keys", "-t", "e2e", "Enter")
	p.waitFor("the editor", p.screen, contains(e2eModel))
	p.run("send-keys", "-t", "e2e", "-l", "unsent words")
	p.waitFor("the typed text", p.screen, contains("unsent words"))
	p.run("send-keys", "-t", "e2e", "C-z")
	stopped := p.waitFor("the shell again", p.screen, contains("Stopped"))
	if strings.Contains(stopped, e2eModel) || strings.Contains(stopped, "unsent words") {
		t.Fatalf("the live region is left on screen while suspended:\n%s", stopped)
	}
	p.run("send-keys", "-t", "e2e", "fg", "Enter")
	p.waitFor("the UI back", p.screen, contains(e2eModel, "unsent words"))
	// Ctrl+C clears the editor, then Ctrl+D on the empty editor quits: two presses within 500 ms
	// (Ctrl+C Ctrl+C) cannot be promised on a loaded machine.
	p.run("send-keys", "-t", "e2e", "C-c")
	p.waitFor("the cleared editor", p.screen, func(s string) bool { return !strings.Contains(s, "unsent words") })
	p.run("send-keys", "-t", "e2e", "C-d")
	p.waitFor("the shell after quitting", p.screen, func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return !strings.Contains(s, e2eModel) && strings.HasPrefix(lines[len(lines)-1], "$")
	})
}
