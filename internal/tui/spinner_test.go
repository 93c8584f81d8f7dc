package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/spinner"
)

// The working indicator is a bubbles spinner whose tick runs only while something animates: an idle
// UI starts none, a run starts one (never two), each tick shows the next frame, and the first tick
// after the run ends stops it. A tick of an earlier run changes nothing.
func TestSpinnerTicksOnlyWhileSomethingRuns(t *testing.T) {
	m := newFullscreenModel(t, 80, 24)
	if m.animate() != nil || m.ticking {
		t.Fatal("an idle UI started a tick")
	}
	m.run.active = true
	cmd := m.animate()
	if cmd == nil || m.animate() != nil {
		t.Fatal("a run must start exactly one tick")
	}
	before := m.spin.View()
	tick, ok := cmd().(spinner.TickMsg) // the timer fires after a frame's time
	if !ok {
		t.Fatalf("the tick command gave %T", tick)
	}
	m.Update(tick)
	frame := m.spin.View()
	if frame == before || !m.ticking {
		t.Fatalf("a tick while running: frame %q → %q, ticking %v", before, frame, m.ticking)
	}
	if got := strings.Join(m.statusLines(80, m.lastFrame), "\n"); !strings.Contains(got, frame+" Working...") {
		t.Fatalf("the status line does not show the spinner's frame %q: %q", frame, got)
	}
	next := m.spin.Tick() // as the running tick carries it
	m.Update(next)
	frame = m.spin.View()
	m.Update(next) // the same tick again: stale
	if m.spin.View() != frame {
		t.Fatal("a stale tick moved the spinner")
	}
	m.run.active = false
	m.Update(m.spin.Tick())
	if m.ticking {
		t.Fatal("the tick goes on after the run ended")
	}
	if m.animate() != nil {
		t.Fatal("an idle UI restarted the tick")
	}
}
