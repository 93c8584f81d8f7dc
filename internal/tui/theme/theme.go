// Package theme holds pi-go's terminal colours: pi 1.6's theme files (the built-in dark and light
// themes and the user's own, validated against pi's schema), turned into lipgloss styles for one
// colour profile, and the text attributes (bold, italic, ...) markdown uses. It knows nothing of
// messages, tools or Bubble Tea; a Theme is immutable once built and safe to share.
package theme

import (
	"embed"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// Reset closes every attribute lipgloss opened, so a styled span never leaks into the next one or
// the next line.
const Reset = termenv.CSI + termenv.ResetSeq + "m"

// ReverseOn and ReverseOff swap foreground and background inside an already styled span and back,
// leaving its colours on (a changed word in a diff line, the editor's cursor).
var (
	ReverseOn  = ansi.Style{}.Reverse(true).String()
	ReverseOff = ansi.Style{}.Reverse(false).String()
)

// Theme is a Spec resolved for one colour profile: a lipgloss style per key, and the escape
// sequences those styles open, cached for the render hot path (a lookup and a concatenation).
type Theme struct {
	spec    *Spec
	dark    bool
	profile termenv.Profile
	fgStyle [numKeys]lipgloss.Style
	bgStyle [numKeys]lipgloss.Style
	fg      [numKeys]string // opening sequence of fgStyle[k], "" when the colour is default or unsupported
	bg      [numKeys]string
	attr    [16]string // opening sequence per Attr set
	inverse string     // opening sequence of reverse video
	plain   lipgloss.Style
}

// New resolves spec for profile. An appearance the spec leaves open (a theme of terminal default
// colours only) is taken from terminalAppearance.
func New(spec *Spec, profile termenv.Profile, terminalAppearance string) *Theme {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(profile)
	appearance := spec.Appearance
	if appearance == "" {
		appearance = terminalAppearance
	}
	t := &Theme{spec: spec, dark: appearance != "light", profile: profile, plain: r.NewStyle()}
	for k := range Key(numKeys) {
		t.fgStyle[k], t.bgStyle[k] = t.plain, t.plain
		c, ok := spec.Color(k)
		if !ok {
			continue
		}
		col := lipglossColor(c, profile)
		t.fgStyle[k] = t.plain.Foreground(col)
		t.bgStyle[k] = t.plain.Background(col)
		t.fg[k] = openingSequence(t.fgStyle[k])
		t.bg[k] = openingSequence(t.bgStyle[k])
	}
	for a := range Attr(len(t.attr)) {
		t.attr[a] = uniqueParams(openingSequence(t.plain.Bold(a&AttrBold != 0).Italic(a&AttrItalic != 0).
			Underline(a&AttrUnderline != 0).Strikethrough(a&AttrStrike != 0)))
	}
	t.inverse = openingSequence(t.plain.Reverse(true))
	return t
}

// lipglossColor is c for profile. On a 256-colour terminal the index is pi's choice for the colour
// (lipgloss's own conversion differs for pi's dark tinted backgrounds); truecolor is exact.
func lipglossColor(c Color, profile termenv.Profile) lipgloss.Color {
	if c.Indexed {
		return lipgloss.Color(strconv.Itoa(int(c.Index)))
	}
	if profile == termenv.ANSI256 {
		return lipgloss.Color(strconv.Itoa(int(c.ANSI256())))
	}
	return lipgloss.Color(c.Hex())
}

// openingSequence is what style writes before its text: lipgloss renders a marker, and everything
// before it is the style's escape sequence ("" for a style that adds nothing in this profile).
func openingSequence(style lipgloss.Style) string {
	const marker = "\u2063"
	out := style.Render(marker)
	i := strings.Index(out, marker)
	if i <= 0 {
		return ""
	}
	return out[:i]
}

// uniqueParams drops repeated parameters from an attribute-only sequence: lipgloss turns underline
// on twice (for the text and for its spaces).
func uniqueParams(seq string) string {
	params, ok := strings.CutPrefix(seq, termenv.CSI)
	if !ok {
		return seq
	}
	var kept []string
	for _, p := range strings.Split(strings.TrimSuffix(params, "m"), ";") {
		if !slices.Contains(kept, p) {
			kept = append(kept, p)
		}
	}
	return termenv.CSI + strings.Join(kept, ";") + "m"
}

//go:embed builtin/*.json
var builtinFS embed.FS

// builtins parses the embedded themes once; a Spec is never modified after Parse.
var builtins = sync.OnceValue(func() map[string]*Spec {
	out := map[string]*Spec{}
	for _, name := range []string{"dark", "light"} {
		data, err := builtinFS.ReadFile("builtin/" + name + ".json")
		if err != nil {
			panic(err)
		}
		spec, err := Parse(name, data)
		if err != nil {
			panic("built-in theme " + name + ": " + err.Error()) // the embedded files are tested
		}
		spec.Path = ""
		out[name] = spec
	}
	return out
})

// Builtin is the built-in theme called name ("dark" or "light"): pi 1.6's own files.
func Builtin(name string) (*Spec, bool) {
	s, ok := builtins()[name]
	return s, ok
}

// Dark is pi's dark theme for profile.
func Dark(profile termenv.Profile) *Theme {
	s, _ := Builtin("dark")
	return New(s, profile, "dark")
}

// Light is pi's light theme for profile.
func Light(profile termenv.Profile) *Theme {
	s, _ := Builtin("light")
	return New(s, profile, "light")
}

// Name is the theme's name ("dark", "light", ...).
func (t *Theme) Name() string { return t.spec.Name }

// Path is the file the theme was loaded from ("" for a built-in theme).
func (t *Theme) Path() string { return t.spec.Path }

// IsDark reports whether the theme is meant for a dark background.
func (t *Theme) IsDark() bool { return t.dark }

// Profile is the colour profile the theme was resolved for.
func (t *Theme) Profile() termenv.Profile { return t.profile }

// Color is k's colour as "#rrggbb" ("" for the terminal's default).
func (t *Theme) Color(k Key) string {
	if c, ok := t.spec.Color(k); ok {
		return c.Hex()
	}
	return ""
}

// FgStyle is the lipgloss style that colours text with k.
func (t *Theme) FgStyle(k Key) lipgloss.Style { return t.fgStyle[k] }

// BgStyle is the lipgloss style that paints k behind text.
func (t *Theme) BgStyle(k Key) lipgloss.Style { return t.bgStyle[k] }

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

// BgSeq is the escape sequence that turns on k's background ("" when there is none).
func (t *Theme) BgSeq(k Key) string { return t.bg[k] }

// FgSeq is the escape sequence that turns on k's foreground ("" when there is none).
func (t *Theme) FgSeq(k Key) string { return t.fg[k] }

// Bold makes s bold.
func (t *Theme) Bold(s string) string { return t.wrap(t.attr[AttrBold], s) }

// Italic makes s italic.
func (t *Theme) Italic(s string) string { return t.wrap(t.attr[AttrItalic], s) }

// Inverse swaps foreground and background of s.
func (t *Theme) Inverse(s string) string { return t.wrap(t.inverse, s) }

// PlainStyle is a lipgloss style with nothing set, on the theme's colour profile: the base for a
// component that styles itself (a bubbles text input's cursor).
func (t *Theme) PlainStyle() lipgloss.Style { return t.plain }

// Style applies a foreground and optional attributes: Style(Error, true, false, "x") is bold red "x".
func (t *Theme) Style(k Key, bold, italic bool, s string) string {
	var a Attr
	if bold {
		a |= AttrBold
	}
	if italic {
		a |= AttrItalic
	}
	return t.wrap(t.fg[k]+t.attr[a], s)
}

func (t *Theme) wrap(open, s string) string {
	if open == "" || s == "" {
		return s
	}
	return open + s + Reset
}
