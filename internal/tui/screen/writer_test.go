package screen

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/tui/screen/screentest"
)

func lines(prefix string, n, width int) []string {
	var out []string
	for i := 0; i < n; i++ {
		l := fmt.Sprintf("%s %d ", prefix, i)
		for len(l) < width {
			l += "="
		}
		out = append(out, l[:width])
	}
	return out
}

func TestScreenPrintsAboveTheLiveRegionOnce(t *testing.T) {
	vt := screentest.New(40, 10)
	s := New(vt, 40, 10, true)
	s.Draw([]string{"header"}, []string{"live a", "live b"})
	s.Draw([]string{"block 1", "block 2"}, []string{"live c"})
	s.Draw(nil, []string{"live d", "live e", "live f"})
	want := []string{"header", "block 1", "block 2", "live d", "live e", "live f"}
	if got := vt.AllLines(); !slices.Equal(got, want) {
		t.Fatalf("terminal:\n%q\nwant\n%q", got, want)
	}
	if unknown := vt.Unknown(); len(unknown) > 0 {
		t.Errorf("unknown sequences: %v", unknown)
	}
}

func TestScreenRedrawsOnlyChangedLines(t *testing.T) {
	var out bytes.Buffer
	s := New(&out, 80, 24, true)
	live := []string{"one", "two", "three", "four"}
	s.Draw(nil, slices.Clone(live))
	out.Reset()
	s.Draw(nil, slices.Clone(live))
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}
	live[2] = "THREE"
	s.Draw(nil, slices.Clone(live))
	if got := out.String(); strings.Contains(got, "one") || strings.Contains(got, "two") || !strings.Contains(got, "THREE") {
		t.Fatalf("frame wrote %q", got)
	}
}

func TestScreenShrinkAndGrowLiveRegion(t *testing.T) {
	vt := screentest.New(30, 8)
	s := New(vt, 30, 8, true)
	s.Draw([]string{"p"}, []string{"a", "b", "c", "d", "e"})
	s.Draw(nil, []string{"a", "b"})
	if got, want := vt.AllLines(), []string{"p", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("after shrinking: %q want %q", got, want)
	}
	s.Draw(nil, []string{"a", "B", "c", "d", "e", "f", "g", "h", "i"})
	if got, want := vt.ScreenLines(), []string{"B", "c", "d", "e", "f", "g", "h", "i"}; !slices.Equal(got, want) {
		t.Fatalf("after growing past the screen: %q want %q", got, want)
	}
}

// A resize to a narrower terminal re-wraps the live region into more rows; the next frame must
// start at the old region's first row, so that the scrollback holds the printed blocks once and
// nothing of the old frame.
func TestScreenNarrowingKeepsScrollbackClean(t *testing.T) {
	for _, tc := range []struct{ from, to int }{{120, 80}, {120, 50}, {80, 79}, {80, 120}} {
		t.Run(fmt.Sprintf("%d-%d", tc.from, tc.to), func(t *testing.T) {
			vt := screentest.New(tc.from, 40)
			s := New(vt, tc.from, 40, true)
			printed := lines("block", 30, tc.from-5)
			s.Draw(printed[:20], lines("live", 6, tc.from))
			vt.Resize(tc.to, 40)
			s.Resize(tc.to, 40)
			newLive := lines("LIVE", 6, tc.to)
			s.Draw(printed[20:], slices.Clone(newLive))
			got := vt.AllLines()
			var want []string
			for _, p := range printed {
				want = append(want, p)
			}
			want = append(want, newLive...)
			if !slices.Equal(got, want) {
				t.Fatalf("terminal after resize:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestScreenReleaseErasesTheLiveRegion(t *testing.T) {
	vt := screentest.New(40, 10)
	s := New(vt, 40, 10, true)
	s.Draw([]string{"history"}, []string{"editor", "footer"})
	s.Release([]string{"tail of the answer"})
	if got, want := vt.AllLines(), []string{"history", "tail of the answer"}; !slices.Equal(got, want) {
		t.Fatalf("after release: %q want %q", got, want)
	}
	if row, col := vt.Cursor(); col != 0 || row != 2 {
		t.Errorf("cursor at row %d col %d, want the start of the row after the output", row, col)
	}
}

func TestScreenTruncatesTooWideLiveLines(t *testing.T) {
	vt := screentest.New(10, 5)
	s := New(vt, 10, 5, true)
	s.Draw(nil, []string{"0123456789ABCDEF", "x"})
	if got, want := vt.AllLines(), []string{"0123456789", "x"}; !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestScreenSeveralResizesBeforeAFrame(t *testing.T) {
	vt := screentest.New(120, 40)
	s := New(vt, 120, 40, true)
	s.Draw(lines("block", 5, 100), lines("live", 6, 120))
	for _, w := range []int{70, 50, 90} {
		vt.Resize(w, 40)
		s.Resize(w, 40)
	}
	newLive := lines("LIVE", 4, 90)
	s.Draw(nil, slices.Clone(newLive))
	want := append(lines("block", 5, 100), newLive...)
	if got := vt.AllLines(); !slices.Equal(got, want) {
		t.Fatalf("terminal:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// While another program has the terminal (Ctrl+Z, the external editor) nothing is drawn; after
// Resume the next frame draws the whole live region again, from the cursor's row.
func TestScreenPauseAndResume(t *testing.T) {
	vt := screentest.New(40, 10)
	s := New(vt, 40, 10, true)
	s.Draw([]string{"history"}, []string{"editor", "footer"})
	s.Pause()
	if got, want := vt.AllLines(), []string{"history"}; !slices.Equal(got, want) {
		t.Fatalf("after Pause: %q want %q", got, want)
	}
	var out bytes.Buffer
	paused := New(&out, 40, 10, true)
	paused.Pause()
	out.Reset()
	paused.Draw([]string{"block"}, []string{"live"})
	if out.Len() != 0 {
		t.Fatalf("a paused writer wrote %q", out.String())
	}
	if _, err := vt.Write([]byte("shell output\r\n")); err != nil {
		t.Fatal(err)
	}
	s.Resume()
	s.Draw(nil, []string{"editor", "footer"})
	if got, want := vt.AllLines(), []string{"history", "shell output", "editor", "footer"}; !slices.Equal(got, want) {
		t.Fatalf("after Resume: %q want %q", got, want)
	}
}
