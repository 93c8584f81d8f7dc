package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"

	"github.com/pi-go/pi-go/internal/tui/screen"
	"github.com/pi-go/pi-go/internal/tui/screen/screentest"
)

// widest is the width of the widest line of s.
func widest(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, runewidth.StringWidth(l))
	}
	return w
}

// A width change lays the whole transcript out again at the new width: the terminal's re-wrapped
// rows of the old layout (joined again here, as `capture-pane -J` joins them) are gone from the
// scrollback, and every block is there once.
func TestWidthChangeRelaysTheTranscriptOut(t *testing.T) {
	long := "First answer: " + strings.Repeat("a paragraph that wraps ", 12)
	sc := newScript(textTurn(long), textTurn("Second answer."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("question one")
	u.waitAll("the first answer", contains("First answer"))
	u.waitSettled()
	if all := strings.Join(u.vt.AllLines(), "\n"); widest(all) <= 70 {
		t.Fatalf("the test needs lines wider than 70 columns at 120:\n%s", all)
	}
	for _, w := range []int{90, 70} {
		u.vt.Resize(w, 40)
		u.tm.Send(tea.WindowSizeMsg{Width: w, Height: 40})
	}
	all := u.waitAll("the transcript laid out at 70 columns", func(s string) bool {
		return widest(s) <= 70 && strings.Contains(s, "question one")
	})
	for _, want := range []string{"question one", "First answer", "pi-go"} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("%q appears %d times after the relayout, want once:\n%s", want, n, all)
		}
	}
	u.submit("question two")
	all = u.waitAll("the second answer", contains("Second answer."))
	if n := strings.Count(all, "First answer"); n != 1 || widest(all) > 70 {
		t.Errorf("after the next turn: the first answer %d times, widest line %d:\n%s", n, widest(all), all)
	}
}

// A width change while another program has the terminal (Ctrl+Z, the external editor) lays the
// transcript out when the UI has it back.
func TestRelayoutWaitsForTheTerminal(t *testing.T) {
	vt := screentest.New(100, 30)
	m := newModel(context.Background(), newTestSession(t, newScript(), nil), Options{Out: vt, TUIMode: TUIModeRegular},
		100, 30, screen.OpenTerminal(nil, vt))
	defer m.shutdown()
	wide := strings.Repeat("wide words ", 8)
	m.addBlock(func(w int) []string { return textBlock([]string{wide}, w) })
	m.drawFrame()
	m.scr.Pause()
	vt.Resize(50, 30)
	m.resize(50, 30)
	m.relayoutDue(relayoutMsg{seq: m.relayoutSeq})
	m.resumed()
	all := strings.Join(vt.AllLines(), "\n")
	if widest(all) > 50 || strings.Count(all, "wide") != 8 {
		t.Fatalf("after resuming at 50 columns:\n%s", all)
	}
}
