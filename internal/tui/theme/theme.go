// Package theme holds pi-go's terminal colours: pi's dark and light palettes, turned into SGR
// sequences for one colour profile, and the text attributes (bold, italic, ...) markdown uses. It
// knows nothing of messages, tools or Bubble Tea; a Theme is immutable once built and safe to share.
package theme

import (
	"strconv"
	"strings"

	"github.com/muesli/termenv"
)

// Key names one colour role of the palette (pi's theme keys).
type Key int

const (
	Accent Key = iota
	Border
	BorderAccent
	BorderMuted
	Success
	Error
	Warning
	Muted
	Dim
	Text
	ThinkingText
	SelectedBg
	UserMessageBg
	UserMessageText
	CustomMessageBg
	CustomMessageText
	CustomMessageLabel
	ToolPendingBg
	ToolSuccessBg
	ToolErrorBg
	ToolTitle
	ToolOutput
	MdHeading
	MdLink
	MdLinkURL
	MdCode
	MdCodeBlock
	MdCodeBlockBorder
	MdQuote
	MdQuoteBorder
	MdHr
	MdListBullet
	ToolDiffAdded
	ToolDiffRemoved
	ToolDiffContext
	ThinkingOff
	ThinkingMinimal
	ThinkingLow
	ThinkingMedium
	ThinkingHigh
	ThinkingXHigh
	BashMode
	SyntaxComment
	SyntaxKeyword
	SyntaxFunction
	SyntaxVariable
	SyntaxString
	SyntaxNumber
	SyntaxType
	SyntaxOperator
	SyntaxPunctuation
	numKeys
)

// Palette maps every Key to a colour: "#rrggbb", an ANSI number ("240"), or "" for the terminal's
// default.
type Palette [numKeys]string

// DarkPalette is pi's dark theme.
func DarkPalette() Palette {
	const (
		cyan, blue, green, red, yellow  = "#00d7ff", "#5f87ff", "#b5bd68", "#cc6666", "#ffff00"
		gray, dimGray, darkGray, accent = "#808080", "#666666", "#505050", "#8abeb7"
	)
	return Palette{
		Accent: accent, Border: blue, BorderAccent: cyan, BorderMuted: darkGray,
		Success: green, Error: red, Warning: yellow, Muted: gray, Dim: dimGray, Text: "",
		ThinkingText: gray, SelectedBg: "#3a3a4a", UserMessageBg: "#343541", UserMessageText: "",
		CustomMessageBg: "#2d2838", CustomMessageText: "", CustomMessageLabel: "#9575cd",
		ToolPendingBg: "#282832", ToolSuccessBg: "#283228", ToolErrorBg: "#3c2828",
		ToolTitle: "", ToolOutput: gray,
		MdHeading: "#f0c674", MdLink: "#81a2be", MdLinkURL: dimGray, MdCode: accent,
		MdCodeBlock: green, MdCodeBlockBorder: gray, MdQuote: gray, MdQuoteBorder: gray,
		MdHr: gray, MdListBullet: accent,
		ToolDiffAdded: green, ToolDiffRemoved: red, ToolDiffContext: gray,
		ThinkingOff: darkGray, ThinkingMinimal: "#6e6e6e", ThinkingLow: "#5f87af",
		ThinkingMedium: "#81a2be", ThinkingHigh: "#b294bb", ThinkingXHigh: "#d183e8",
		BashMode:      green,
		SyntaxComment: "#6A9955", SyntaxKeyword: "#569CD6", SyntaxFunction: "#DCDCAA",
		SyntaxVariable: "#9CDCFE", SyntaxString: "#CE9178", SyntaxNumber: "#B5CEA8",
		SyntaxType: "#4EC9B0", SyntaxOperator: "#D4D4D4", SyntaxPunctuation: "#D4D4D4",
	}
}

// LightPalette is pi's light theme.
func LightPalette() Palette {
	const (
		teal, blue, green, red, yellow = "#5a8080", "#547da7", "#588458", "#aa5555", "#9a7326"
		mediumGray, dimGray, lightGray = "#6c6c6c", "#767676", "#b0b0b0"
	)
	return Palette{
		Accent: teal, Border: blue, BorderAccent: teal, BorderMuted: lightGray,
		Success: green, Error: red, Warning: yellow, Muted: mediumGray, Dim: dimGray, Text: "",
		ThinkingText: mediumGray, SelectedBg: "#d0d0e0", UserMessageBg: "#e8e8e8", UserMessageText: "",
		CustomMessageBg: "#ede7f6", CustomMessageText: "", CustomMessageLabel: "#7e57c2",
		ToolPendingBg: "#e8e8f0", ToolSuccessBg: "#e8f0e8", ToolErrorBg: "#f0e8e8",
		ToolTitle: "", ToolOutput: mediumGray,
		MdHeading: yellow, MdLink: blue, MdLinkURL: dimGray, MdCode: teal,
		MdCodeBlock: green, MdCodeBlockBorder: mediumGray, MdQuote: mediumGray, MdQuoteBorder: mediumGray,
		MdHr: mediumGray, MdListBullet: green,
		ToolDiffAdded: green, ToolDiffRemoved: red, ToolDiffContext: mediumGray,
		ThinkingOff: lightGray, ThinkingMinimal: "#767676", ThinkingLow: blue,
		ThinkingMedium: teal, ThinkingHigh: "#875f87", ThinkingXHigh: "#8b008b",
		BashMode:      green,
		SyntaxComment: "#008000", SyntaxKeyword: "#0000FF", SyntaxFunction: "#795E26",
		SyntaxVariable: "#001080", SyntaxString: "#A31515", SyntaxNumber: "#098658",
		SyntaxType: "#267F99", SyntaxOperator: "#000000", SyntaxPunctuation: "#000000",
	}
}

// SGR sequences used around styled text. Reset closes every attribute, so a styled span never
// leaks into the next one or the next line.
const (
	Reset     = "\x1b[0m"
	boldOn    = "\x1b[1m"
	italicOn  = "\x1b[3m"
	inverseOn = "\x1b[7m"
)

// Theme is a palette resolved for one colour profile.
type Theme struct {
	name    string
	dark    bool
	profile termenv.Profile
	palette Palette
	fg      [numKeys]string // SGR opening sequence per key, "" when the colour is default or unsupported
	bg      [numKeys]string
	attrs   bool // bold/italic/inverse are emitted (false for the Ascii profile)
}

// New resolves palette for profile. dark tells whether it is meant for a dark background.
func New(name string, palette Palette, profile termenv.Profile, dark bool) *Theme {
	t := &Theme{name: name, dark: dark, profile: profile, palette: palette, attrs: profile != termenv.Ascii}
	for k, c := range palette {
		if c == "" {
			continue
		}
		if r, g, b, ok := parseHex(c); ok && profile == termenv.TrueColor {
			// Exact: termenv's conversion can be one off in a channel.
			rgb := strconv.Itoa(r) + ";" + strconv.Itoa(g) + ";" + strconv.Itoa(b)
			t.fg[k], t.bg[k] = "\x1b[38;2;"+rgb+"m", "\x1b[48;2;"+rgb+"m"
			continue
		} else if ok && profile == termenv.ANSI256 {
			n := strconv.Itoa(to256(r, g, b))
			t.fg[k], t.bg[k] = "\x1b[38;5;"+n+"m", "\x1b[48;5;"+n+"m"
			continue
		}
		col := profile.Color(c)
		if col == nil {
			continue
		}
		if seq := col.Sequence(false); seq != "" {
			t.fg[k] = "\x1b[" + seq + "m"
		}
		if seq := col.Sequence(true); seq != "" {
			t.bg[k] = "\x1b[" + seq + "m"
		}
	}
	return t
}

func parseHex(c string) (r, g, b int, ok bool) {
	if len(c) != 7 || c[0] != '#' {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff), true
}

// Dark is pi's dark theme for profile.
func Dark(profile termenv.Profile) *Theme { return New("dark", DarkPalette(), profile, true) }

// Light is pi's light theme for profile.
func Light(profile termenv.Profile) *Theme { return New("light", LightPalette(), profile, false) }

// Name is the theme's name ("dark", "light", ...).
func (t *Theme) Name() string { return t.name }

// IsDark reports whether the theme is meant for a dark background.
func (t *Theme) IsDark() bool { return t.dark }

// Profile is the colour profile the theme was resolved for.
func (t *Theme) Profile() termenv.Profile { return t.profile }

// Color is the palette entry of k ("" for the terminal default).
func (t *Theme) Color(k Key) string { return t.palette[k] }

// Fg colours s with the foreground of k. s must be a single line.
func (t *Theme) Fg(k Key, s string) string {
	if t.fg[k] == "" || s == "" {
		return s
	}
	return t.fg[k] + s + Reset
}

// Bg paints s with the background of k (no padding). s must be a single line.
func (t *Theme) Bg(k Key, s string) string {
	if t.bg[k] == "" || s == "" {
		return s
	}
	return t.bg[k] + s + Reset
}

// BgSeq is the SGR sequence that turns on k's background ("" when there is none).
func (t *Theme) BgSeq(k Key) string { return t.bg[k] }

// FgSeq is the SGR sequence that turns on k's foreground ("" when there is none).
func (t *Theme) FgSeq(k Key) string { return t.fg[k] }

// Bold makes s bold.
func (t *Theme) Bold(s string) string { return t.attr(boldOn, s) }

// Italic makes s italic.
func (t *Theme) Italic(s string) string { return t.attr(italicOn, s) }

// Inverse swaps foreground and background of s.
func (t *Theme) Inverse(s string) string { return t.attr(inverseOn, s) }

// Style applies a foreground and optional attributes in one sequence: Style(Error, true, false, "x")
// is bold red "x".
func (t *Theme) Style(k Key, bold, italic bool, s string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 24)
	b.WriteString(t.fg[k])
	if t.attrs && bold {
		b.WriteString(boldOn)
	}
	if t.attrs && italic {
		b.WriteString(italicOn)
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	b.WriteString(Reset)
	return b.String()
}

func (t *Theme) attr(on, s string) string {
	if !t.attrs || s == "" {
		return s
	}
	return on + s + Reset
}

// ThinkingKey is the colour key of a thinking level ("off", "minimal", ... "xhigh", "max", which shares
// xhigh's colour); the editor border uses it.
func ThinkingKey(level string) Key {
	switch level {
	case "minimal":
		return ThinkingMinimal
	case "low":
		return ThinkingLow
	case "medium":
		return ThinkingMedium
	case "high":
		return ThinkingHigh
	case "xhigh", "max":
		return ThinkingXHigh
	default:
		return ThinkingOff
	}
}

// to256 picks the nearest xterm 256-colour index for an RGB colour, from the 6x6x6 cube or the grey
// ramp, whichever is closer (tmux's method). termenv's conversion turns pi's dark tinted backgrounds
// (#283228) into saturated cube colours (#005f00).
func to256(r, g, b int) int {
	levels := [6]int{0, 0x5f, 0x87, 0xaf, 0xd7, 0xff}
	q := func(v int) int {
		switch {
		case v < 48:
			return 0
		case v < 115:
			return 1
		default:
			return (v - 35) / 40
		}
	}
	qr, qg, qb := q(r), q(g), q(b)
	cr, cg, cb := levels[qr], levels[qg], levels[qb]
	cube := 16 + 36*qr + 6*qg + qb
	if cr == r && cg == g && cb == b {
		return cube
	}
	avg := (r + g + b) / 3
	gi := 23
	if avg <= 238 {
		gi = max((avg-3)/10, 0)
	}
	gv := 8 + 10*gi
	dist := func(x, y, z int) int { return (x-r)*(x-r) + (y-g)*(y-g) + (z-b)*(z-b) }
	if dist(gv, gv, gv) < dist(cr, cg, cb) {
		return 232 + gi
	}
	return cube
}

// Resolve picks "light" or "dark" for pi 1.6's theme setting: "light" and "dark" name themselves;
// "system" (the default, also when the setting is empty) follows the terminal's appearance, and so
// does a "light/dark" pair, taking its first name on a light terminal and its second on a dark one.
// The appearance comes from COLORFGBG ("fg;bg" or "fg;xpm;bg": the background's ANSI index last;
// 0-6 and 8 are dark, 7 and 9-15 light), else dark, as pi decides when the terminal does not report
// its background (pi-go does not query the terminal for it). pi-go's
// "system" uses its own dark or light palette rather than the terminal's colours, and a name pi-go
// does not know (a custom pi theme) gets the dark theme.
func Resolve(setting, colorFGBG string) string {
	appearance := "dark"
	parts := strings.Split(colorFGBG, ";")
	bg := strings.TrimSpace(parts[len(parts)-1])
	if n, err := strconv.Atoi(bg); err == nil && len(bg) <= 2 && bg[0] >= '0' && n > 6 && n <= 15 && n != 8 {
		appearance = "light"
	}
	name := setting
	if light, dark, pair := strings.Cut(setting, "/"); pair {
		name = dark
		if appearance == "light" {
			name = light
		}
	}
	switch name {
	case "light", "dark":
		return name
	case "", "system":
		return appearance
	}
	return "dark"
}
