package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
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
	vt := newVTerm(40, 10)
	s := newScreen(vt, 40, 10, true)
	s.draw([]string{"header"}, []string{"live a", "live b"})
	s.draw([]string{"block 1", "block 2"}, []string{"live c"})
	s.draw(nil, []string{"live d", "live e", "live f"})
	want := []string{"header", "block 1", "block 2", "live d", "live e", "live f"}
	if got := vt.allLines(); !slices.Equal(got, want) {
		t.Fatalf("terminal:\n%q\nwant\n%q", got, want)
	}
	if len(vt.unknown) > 0 {
		t.Errorf("unknown sequences: %v", vt.unknown)
	}
}

func TestScreenRedrawsOnlyChangedLines(t *testing.T) {
	var out bytes.Buffer
	s := newScreen(&out, 80, 24, true)
	live := []string{"one", "two", "three", "four"}
	s.draw(nil, slices.Clone(live))
	out.Reset()
	s.draw(nil, slices.Clone(live))
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}
	live[2] = "THREE"
	s.draw(nil, slices.Clone(live))
	if got := out.String(); strings.Contains(got, "one") || strings.Contains(got, "two") || !strings.Contains(got, "THREE") {
		t.Fatalf("frame wrote %q", got)
	}
}

func TestScreenShrinkAndGrowLiveRegion(t *testing.T) {
	vt := newVTerm(30, 8)
	s := newScreen(vt, 30, 8, true)
	s.draw([]string{"p"}, []string{"a", "b", "c", "d", "e"})
	s.draw(nil, []string{"a", "b"})
	if got, want := vt.allLines(), []string{"p", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("after shrinking: %q want %q", got, want)
	}
	s.draw(nil, []string{"a", "B", "c", "d", "e", "f", "g", "h", "i"})
	if got, want := vt.screenLines(), []string{"B", "c", "d", "e", "f", "g", "h", "i"}; !slices.Equal(got, want) {
		t.Fatalf("after growing past the screen: %q want %q", got, want)
	}
}

// A resize to a narrower terminal re-wraps the live region into more rows; the next frame must
// start at the old region's first row, so that the scrollback holds the printed blocks once and
// nothing of the old frame.
func TestScreenNarrowingKeepsScrollbackClean(t *testing.T) {
	for _, tc := range []struct{ from, to int }{{120, 80}, {120, 50}, {80, 79}, {80, 120}} {
		t.Run(fmt.Sprintf("%d-%d", tc.from, tc.to), func(t *testing.T) {
			vt := newVTerm(tc.from, 40)
			s := newScreen(vt, tc.from, 40, true)
			printed := lines("block", 30, tc.from-5)
			s.draw(printed[:20], lines("live", 6, tc.from))
			vt.resize(tc.to, 40)
			s.resize(tc.to, 40)
			newLive := lines("LIVE", 6, tc.to)
			s.draw(printed[20:], slices.Clone(newLive))
			got := vt.allLines()
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
	vt := newVTerm(40, 10)
	s := newScreen(vt, 40, 10, true)
	s.draw([]string{"history"}, []string{"editor", "footer"})
	s.release([]string{"tail of the answer"})
	if got, want := vt.allLines(), []string{"history", "tail of the answer"}; !slices.Equal(got, want) {
		t.Fatalf("after release: %q want %q", got, want)
	}
	if vt.cx != 0 || vt.cy-vt.top != 2 {
		t.Errorf("cursor at row %d col %d, want the start of the row after the output", vt.cy-vt.top, vt.cx)
	}
}

func TestScreenTruncatesTooWideLiveLines(t *testing.T) {
	vt := newVTerm(10, 5)
	s := newScreen(vt, 10, 5, true)
	s.draw(nil, []string{"0123456789ABCDEF", "x"})
	if got, want := vt.allLines(), []string{"0123456789", "x"}; !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestScreenSeveralResizesBeforeAFrame(t *testing.T) {
	vt := newVTerm(120, 40)
	s := newScreen(vt, 120, 40, true)
	s.draw(lines("block", 5, 100), lines("live", 6, 120))
	for _, w := range []int{70, 50, 90} {
		vt.resize(w, 40)
		s.resize(w, 40)
	}
	newLive := lines("LIVE", 4, 90)
	s.draw(nil, slices.Clone(newLive))
	want := append(lines("block", 5, 100), newLive...)
	if got := vt.allLines(); !slices.Equal(got, want) {
		t.Fatalf("terminal:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
