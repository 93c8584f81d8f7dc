package tui

import (
	"math"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/render"
)

// workingIndicator is an extension's working indicator (pi's ctx.ui.setWorkingIndicator): frames
// drawn as they are, one every interval, in place of the spinner of the working line; no frames
// hide it. It applies to the line of a run (working, thinking, running tools), as pi's loader.
type workingIndicator struct {
	frames   []string
	interval time.Duration
	since    time.Time // the animation starts again at each change, as pi's Loader.setIndicator
}

// frame is the frame to draw at now. The TUI redraws at the spinner's ticks, so an interval
// shorter than those advances at their pace.
func (w *workingIndicator) frame(now time.Time) string {
	if len(w.frames) == 0 {
		return ""
	}
	return w.frames[int(now.Sub(w.since)/w.interval)%len(w.frames)]
}

type extIndicatorMsg struct {
	frames   []string // nil: pi-go's spinner again
	interval time.Duration
}

// SetWorkingIndicator replaces the working line's spinner with frames shown every interval (0:
// pi's 80 ms); frames nil restores the spinner, frames empty hides the indicator.
func (u *ExtensionUI) SetWorkingIndicator(frames []string, interval time.Duration) {
	u.relay.send(extIndicatorMsg{frames, interval})
}

func (msg extIndicatorMsg) apply(m *model) tea.Cmd {
	if msg.frames == nil {
		m.ext.indicator = nil
		return nil
	}
	// Frames carry their own colours: closed after each, or left out on a plain terminal, as the
	// extensions' other lines (the status line cuts the whole line to the width).
	frames := m.extLines(msg.frames, math.MaxInt)
	interval := msg.interval
	if interval <= 0 {
		interval = render.SpinnerInterval
	}
	m.ext.indicator = &workingIndicator{frames: frames, interval: interval, since: time.Now()}
	return nil
}
