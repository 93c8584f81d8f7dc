package tui

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/screen"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// An extension's working indicator: its frames drawn in turn every interval, their colours closed
// after each (left out on a plain terminal); no frames hide it, nil restores pi-go's spinner.
func TestWorkingIndicatorFrames(t *testing.T) {
	m := newModel(context.Background(), newTestSession(t, newScript(), nil), Options{Out: io.Discard}, 80, 24, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	red := "\x1b[31m*\x1b[39m"
	for _, tc := range []struct {
		profile termenv.Profile
		want    []string
	}{
		{termenv.ANSI256, []string{red + theme.Reset, "+"}},
		{termenv.Ascii, []string{"*", "+"}},
	} {
		m.r = render.New(render.Options{Theme: theme.Dark(tc.profile)})
		extIndicatorMsg{frames: []string{red, "+"}, interval: 100 * time.Millisecond}.apply(m)
		ind := m.ext.indicator
		for i, at := range []time.Duration{0, 150 * time.Millisecond, 250 * time.Millisecond} {
			if got, want := ind.frame(ind.since.Add(at)), tc.want[i%2]; got != want {
				t.Errorf("profile %v, %v after the change: frame %q, want %q", tc.profile, at, got, want)
			}
		}
	}
	extIndicatorMsg{frames: []string{}}.apply(m)
	if m.ext.indicator == nil || m.ext.indicator.frame(time.Now()) != "" {
		t.Error("no frames: the indicator is not hidden")
	}
	extIndicatorMsg{}.apply(m)
	if m.ext.indicator != nil {
		t.Error("nil frames: pi-go's spinner is not back")
	}
}
