package tui

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// fullscreenAt reports whether a fullscreen pane shows one clean frame at width w (framedAt), with
// the paragraph markers in view each once and in order, without a gap (a row left over from an older
// frame would break the order or repeat a marker).
func fullscreenAt(s string, w int) bool {
	if !framedAt(s, w) {
		return false
	}
	last := 0
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "Para"); i >= 0 && i+6 <= len(l) {
			n, err := strconv.Atoi(l[i+4 : i+6])
			if err != nil {
				continue
			}
			if last != 0 && n != last+1 {
				return false
			}
			last = n
		}
	}
	return true
}

func TestTmuxFullscreen(t *testing.T) {
	// Its own tmux server, pane and directories, and mostly waiting: the tmux tests run side by side.
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	srv := openaitest.Start(t)
	const total = 24
	c := openaitest.NewChunks(e2eModel)
	events := []string{c.Role()}
	var deltas []int // the number of deltas of each paragraph
	for i := 1; i <= total; i++ {
		text := paragraph(i)
		if i < total {
			text += "\n\n"
		}
		n := 0
		for len(text) > 0 {
			k := min(len(text), 37)
			events = append(events, c.Text(text[:k]))
			text = text[k:]
			n++
		}
		deltas = append(deltas, n)
	}
	events = append(events, c.Finish("stop"), c.Usage(1200, 800, 0), openaitest.Done())
	gate := make(chan struct{})
	srv.Enqueue(openaitest.Response{Events: events, Gate: gate})

	dir := t.TempDir()
	p := &tmuxPane{tb: t, socket: fmt.Sprintf("pi-tui-e2e-fs-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// The shell keeps the pane open after pi exits (tmux may drop the last output of a pane whose
	// process is gone) and says when it has.
	cmd := fmt.Sprintf("sh -c \"env %s=1 %s=%s %s=%s %s=%s %s -test.run='^$'; echo PI-EXITED; read x\"", e2eHelperEnv,
		e2eURLEnv, srv.URL, e2eDirEnv, dir, e2eModeEnv, TUIModeFullscreen, os.Args[0])
	p.run("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	// OSC 52 from the pane sets a tmux buffer, which show-buffer reads.
	p.run("set-option", "-g", "set-clipboard", "on")
	p.waitFor("the editor and footer", p.screen, contains("pi-go e2e", e2eModel))

	p.run("send-keys", "-t", "e2e", "-l", "tell me about terminals")
	p.run("send-keys", "-t", "e2e", "Enter")
	feed := func(n int) {
		for i := 0; i < n; i++ {
			gate <- struct{}{}
		}
	}
	feed(1) // the role chunk
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	const sequences = 50
	fed := 0
	for seq := 0; seq < sequences; seq++ {
		if fed < total-1 && seq < sequences/2 {
			feed(deltas[fed])
			fed++
		}
		if seq == sequences/2 {
			close(gate)
			fed = total
			p.waitFor("the whole answer", p.screen, func(s string) bool {
				return strings.Contains(s, fmt.Sprintf("Para%02d", total)) && !strings.Contains(s, "Working...")
			})
		}
		var widths []int
		for range 1 + rng.IntN(3) {
			widths = append(widths, 40+rng.IntN(101))
		}
		for _, w := range widths {
			p.run("resize-window", "-t", "e2e", "-x", strconv.Itoa(w), "-y", "40")
		}
		w := widths[len(widths)-1]
		want := fmt.Sprintf("Para%02d", fed)
		p.waitFor(fmt.Sprintf("sequence %d %v: one frame at %d columns", seq, widths, w), p.screen, func(s string) bool {
			return fullscreenAt(s, w) && (fed == 0 || strings.Contains(s, want))
		})
	}
	p.run("resize-window", "-t", "e2e", "-x", "120", "-y", "40")
	p.waitFor("the frame at 120 columns", p.screen, func(s string) bool { return fullscreenAt(s, 120) })
	// Scrolling: Page Up leaves the end, Ctrl+End comes back to it.
	p.run("send-keys", "-t", "e2e", "PPage")
	p.waitFor("an earlier page", p.screen, func(s string) bool {
		return !strings.Contains(s, fmt.Sprintf("Para%02d", total)) && fullscreenAt(s, 120)
	})
	p.run("send-keys", "-t", "e2e", "C-End")
	p.waitFor("the end again", p.screen, contains(fmt.Sprintf("Para%02d", total)))

	// Search (Ctrl+Shift+F as the kitty protocol sends it): the match comes into view.
	p.run("send-keys", "-t", "e2e", "-l", "\x1b[102;6u")
	p.waitFor("the search bar", p.screen, contains("Search:"))
	p.run("send-keys", "-t", "e2e", "-l", "Para03")
	screen := p.waitFor("the match", p.screen, contains("1/1", "Para03"))
	p.run("send-keys", "-t", "e2e", "Escape")
	p.waitFor("the search closed", p.screen, func(s string) bool { return !strings.Contains(s, "Search:") })

	// Select Para03's first row with the mouse (SGR reports, 1-based): copied with OSC 52.
	screen = p.screen()
	rows := strings.Split(screen, "\n")
	y := rowOf(rows, "Para03")
	if y < 0 {
		t.Fatalf("Para03 is not in view:\n%s", screen)
	}
	x := strings.Index(rows[y], "Para03")
	p.run("send-keys", "-t", "e2e", "-l", fmt.Sprintf("\x1b[<0;%d;%dM", x+1, y+1))
	p.run("send-keys", "-t", "e2e", "-l", fmt.Sprintf("\x1b[<32;%d;%dM", x+20, y+1))
	p.run("send-keys", "-t", "e2e", "-l", fmt.Sprintf("\x1b[<0;%d;%dm", x+20, y+1))
	p.waitFor("the copy notice", p.screen, contains("Copied selection to clipboard"))
	buf := p.waitFor("the tmux buffer", func() string {
		out, _ := exec.Command("tmux", "-L", p.socket, "show-buffer").CombinedOutput()
		return string(out)
	}, contains("Para03 streams a par"))
	if strings.Contains(buf, "\n") {
		t.Errorf("a one-row selection copied several lines: %q", buf)
	}

	// Leaving prints the transcript on the main screen (fullscreenExitOutput "transcript"), once.
	p.run("send-keys", "-t", "e2e", "C-d")
	all := p.waitFor("the transcript after exit", p.capture, contains("PI-EXITED"))
	for i := 1; i <= total; i++ {
		if n := strings.Count(all, fmt.Sprintf("Para%02d", i)); n != 1 {
			t.Errorf("Para%02d appears %d times in the pane after exit, want once", i, n)
		}
	}
	if n := strings.Count(all, "tell me about terminals"); n != 1 {
		t.Errorf("the prompt appears %d times after exit, want once:\n%s", n, all)
	}
}
