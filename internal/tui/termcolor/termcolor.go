// Package termcolor asks the terminal for its default colours (OSC 11 for the background, OSC 10 for
// the foreground), which decide whether the "system" theme and a "light/dark" theme pair go light or
// dark. It writes the queries and reads the answers before Bubble Tea takes the input over; it knows
// nothing of themes beyond the RGB it returns.
package termcolor

import (
	"regexp"
	"strconv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// query asks for the background and the foreground, then for the primary device attributes: every
// terminal answers DA1, so its answer ends the wait early on a terminal that ignores OSC 10/11.
const query = "\x1b]11;?\x07\x1b]10;?\x07\x1b[c"

var (
	oscReply = regexp.MustCompile(`\x1b\](1[01]);([^\x07\x1b]*)(?:\x07|\x1b\\)`)
	da1Reply = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
)

// parse reads the OSC 10/11 answers in buf; done reports that the DA1 answer has arrived (nothing
// more will come).
func parse(buf []byte) (bg, fg *theme.RGB, done bool) {
	for _, m := range oscReply.FindAllSubmatch(buf, -1) {
		c, ok := parseColor(string(m[2]))
		if !ok {
			continue
		}
		if string(m[1]) == "11" {
			bg = &c
		} else {
			fg = &c
		}
	}
	return bg, fg, da1Reply.Match(buf)
}

var (
	hexColor = regexp.MustCompile(`^#([[:xdigit:]]{6}|[[:xdigit:]]{12})$`)
	rgbColor = regexp.MustCompile(`^rgba?:([[:xdigit:]]{1,4})/([[:xdigit:]]{1,4})/([[:xdigit:]]{1,4})(?:/[[:xdigit:]]{1,4})?$`)
)

// parseColor reads an X11 colour specification as terminals report it: rgb:RRRR/GGGG/BBBB (1-4
// hex digits a channel, scaled to 0-255), or #RRGGBB / #RRRRGGGGBBBB.
func parseColor(s string) (theme.RGB, bool) {
	channel := func(h string) uint8 {
		v, _ := strconv.ParseUint(h, 16, 32)
		maxV := uint64(1)<<(4*len(h)) - 1
		return uint8((v*255*2 + maxV) / (2 * maxV)) // rounded
	}
	if m := hexColor.FindStringSubmatch(s); m != nil {
		h := m[1]
		n := len(h) / 3
		return theme.RGB{R: channel(h[:n]), G: channel(h[n : 2*n]), B: channel(h[2*n:])}, true
	}
	if m := rgbColor.FindStringSubmatch(s); m != nil {
		return theme.RGB{R: channel(m[1]), G: channel(m[2]), B: channel(m[3])}, true
	}
	return theme.RGB{}, false
}
