package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// toolTab is what a tab in tool output and diffs becomes (pi replaces tabs with three spaces).
const toolTab = "   "

// Width is the number of terminal cells s occupies; escape sequences count zero, wide characters two.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most width cells, ending it with tail when something was cut. Styles that
// were open at the cut are closed.
func Truncate(s string, width int, tail string) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	if ansi.StringWidth(tail) > width {
		tail = ""
	}
	out := ansi.Truncate(s, width, tail)
	if strings.IndexByte(out, 0x1b) >= 0 {
		out += theme.Reset
	}
	return out
}

// cleanOutput makes tool or shell output safe to measure and print: escape sequences removed, CR
// dropped, tabs expanded, other control characters (which a terminal would act on) removed.
func cleanOutput(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(s)
	}
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString(toolTab)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError:
			// dropped: CR, other C0/C1 controls, invalid UTF-8
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				// non-ASCII: only C1 controls and invalid bytes need work; check by rune.
				r, size := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError || (r >= 0x80 && r < 0xa0) {
					return true
				}
				i += size - 1
				continue
			}
			return true
		}
	}
	return false
}

// oneLine flattens s to a single clean line (newlines and tabs become spaces) for headers and
// truncated one-line displays.
func oneLine(s string) string {
	s = cleanOutput(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	return s
}

// Wrap breaks styled text into lines of at most width cells (see wrap).
func Wrap(s string, width int) []string { return wrap(s, width) }

// wrap breaks styled text into lines of at most width cells: at spaces where possible (not at
// hyphens: "--base-url" and "ls -la" stay whole), inside words longer than the line. Embedded
// newlines start new lines. Styles open at a break are closed at the end of the line and reopened
// on the next, so every line stands alone.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if ansi.StringWidth(para) <= width {
			out = append(out, para)
			continue
		}
		out = append(out, wordWrap(para, width)...)
	}
	return carrySGR(out)
}

// carrySGR makes each line self-contained: SGR state still open at the end of a line is reset there
// and re-opened at the start of the next line.
func carrySGR(lines []string) []string {
	active := ""
	for i, l := range lines {
		hasEsc := strings.IndexByte(l, 0x1b) >= 0
		if !hasEsc && active == "" {
			continue
		}
		prefix := active
		if hasEsc {
			active = sgrStateAfter(active, l)
		}
		if prefix != "" {
			l = prefix + l
		}
		if active != "" {
			l += theme.Reset
		}
		lines[i] = l
	}
	return lines
}

// sgrStateAfter returns the SGR sequences in effect after s, given those in effect before it: every
// SGR since the last full reset, in order.
func sgrStateAfter(state, s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		if j >= len(s) {
			break
		}
		if s[j] == 'm' {
			params := s[i+2 : j]
			if params == "" || params == "0" {
				state = ""
			} else {
				state += s[i : j+1]
			}
		}
		i = j
	}
	return state
}

// trimRight drops trailing spaces from a styled line, keeping every escape sequence before the last
// visible character and closing any open style.
func trimRight(s string) string {
	if s == "" {
		return s
	}
	if strings.IndexByte(s, 0x1b) < 0 {
		return strings.TrimRight(s, " ")
	}
	end := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if c != ' ' {
			end = i + size
		}
		i += size
	}
	if end == 0 {
		return ""
	}
	out := s[:end]
	if sgrStateAfter("", out) != "" {
		out += theme.Reset
	}
	return out
}

// skipEscape returns the index just after the escape sequence starting at s[i] (ESC).
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[': // CSI: parameters, then one final byte 0x40-0x7e
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		return min(j+1, len(s))
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ST
		j := i + 2
		for j < len(s) {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			j++
		}
		return len(s)
	default:
		return i + 2
	}
}

// isBlank reports whether a styled line shows nothing but spaces.
func isBlank(s string) bool {
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		if s[i] != ' ' {
			return false
		}
		i++
	}
	return true
}

// hardwrap cuts a line into pieces of at most width cells. A character wider than width (a wide
// character at width 1) cannot be shown and is dropped.
func hardwrap(l string, width int) []string {
	parts := strings.Split(ansi.Hardwrap(l, width, true), "\n")
	for i, p := range parts {
		if ansi.StringWidth(p) > width {
			parts[i] = ansi.Truncate(p, width, "")
		}
	}
	return parts
}

// fit makes every line at most width cells, cutting the ones that are wider (code lines, which are
// not word-wrapped, and prefixes wider than a narrow terminal).
func fit(lines []string, width int) []string {
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			out := make([]string, 0, len(lines)+4)
			out = append(out, lines[:i]...)
			for _, l := range lines[i:] {
				if ansi.StringWidth(l) <= width {
					out = append(out, l)
					continue
				}
				out = append(out, carrySGR(hardwrap(l, width))...)
			}
			return out
		}
	}
	return lines
}

// padLeft adds the one-space left padding pi gives text in the chat. The lines were laid out for
// max(width-2, 1) cells; below 3 columns that does not fit, and lines are cut to width.
func padLeft(lines []string, width int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if l == "" {
			continue
		}
		l = " " + l
		if width < 3 {
			l = Truncate(l, width, "")
		}
		out[i] = l
	}
	return out
}

// FillBg paints a full-width background behind line (see fillBg): a selected row of a list.
func FillBg(line string, width int, bgSeq string) string { return fillBg(line, width, bgSeq) }

// fillBg paints a full-width background behind line: the background is re-applied after every reset
// inside the line and the line is padded to width.
func fillBg(line string, width int, bgSeq string) string {
	w := ansi.StringWidth(line)
	if w > width {
		line = Truncate(line, width, "")
		w = ansi.StringWidth(line)
	}
	pad := strings.Repeat(" ", width-w)
	if bgSeq == "" {
		return line + pad
	}
	if strings.IndexByte(line, 0x1b) >= 0 {
		// Every reset inside the line would end the background too: open it again after each.
		line = strings.ReplaceAll(line, theme.Reset, theme.Reset+bgSeq)
		line = strings.ReplaceAll(line, ansi.ResetStyle, ansi.ResetStyle+bgSeq)
	}
	return bgSeq + line + pad + theme.Reset
}

// box lays lines inside a padded, background-filled box of the full width: paddingY blank lines above
// and below, paddingX spaces left and right. The lines must already fit width-2*paddingX.
func box(lines []string, width, paddingX, paddingY int, bgSeq string) []string {
	out := make([]string, 0, len(lines)+2*paddingY)
	blank := fillBg("", width, bgSeq)
	for i := 0; i < paddingY; i++ {
		out = append(out, blank)
	}
	pad := strings.Repeat(" ", paddingX)
	for _, l := range lines {
		out = append(out, fillBg(pad+l, width, bgSeq))
	}
	for i := 0; i < paddingY; i++ {
		out = append(out, blank)
	}
	return out
}
