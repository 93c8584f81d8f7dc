package theme

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

func TestProfiles(t *testing.T) {
	if got := Dark(termenv.TrueColor).Fg(Error, "x"); got != "\x1b[38;2;204;102;102mx"+Reset {
		t.Errorf("truecolor error fg = %q", got)
	}
	if got := Dark(termenv.TrueColor).Bg(UserMessageBg, "x"); got != "\x1b[48;2;52;53;65mx"+Reset {
		t.Errorf("truecolor user bg = %q", got)
	}
	if got := Dark(termenv.ANSI256).Fg(Error, "x"); !strings.HasPrefix(got, "\x1b[38;5;") || !strings.HasSuffix(got, Reset) {
		t.Errorf("256-colour error fg = %q", got)
	}
	if got := Dark(termenv.ANSI).Fg(Error, "x"); !strings.HasPrefix(got, "\x1b[") || strings.Contains(got, ";5;") {
		t.Errorf("16-colour error fg = %q", got)
	}
	plain := Dark(termenv.Ascii)
	for _, got := range []string{plain.Fg(Error, "x"), plain.Bg(ToolErrorBg, "x"), plain.Bold("x"), plain.Italic("x"),
		plain.Inverse("x"), plain.Style(Accent, true, true, "x")} {
		if got != "x" {
			t.Errorf("Ascii profile styled %q", got)
		}
	}
	// Keys with the terminal's default colour add nothing.
	if got := Dark(termenv.ANSI256).Fg(Text, "x"); got != "x" {
		t.Errorf("default text colour = %q", got)
	}
	if got := Light(termenv.ANSI256).Style(Text, true, false, "x"); got != "\x1b[1mx"+Reset {
		t.Errorf("bold default colour = %q", got)
	}
}

func TestPalettesAreComplete(t *testing.T) {
	optional := map[Key]bool{Text: true, UserMessageText: true, CustomMessageText: true, ToolTitle: true}
	for name, p := range map[string]Palette{"dark": DarkPalette(), "light": LightPalette()} {
		for k, c := range p {
			if c == "" && !optional[Key(k)] {
				t.Errorf("%s palette: key %d has no colour", name, k)
			}
		}
	}
}

func TestAttrSeq(t *testing.T) {
	th := Dark(termenv.ANSI256)
	for a, want := range map[Attr]string{0: "", AttrBold: "\x1b[1m", AttrItalic | AttrUnderline: "\x1b[3;4m",
		AttrBold | AttrItalic | AttrUnderline | AttrStrike: "\x1b[1;3;4;9m"} {
		if got := th.AttrSeq(a); got != want {
			t.Errorf("AttrSeq(%b) = %q, want %q", a, got, want)
		}
	}
	if got := Dark(termenv.Ascii).AttrSeq(AttrBold); got != "" {
		t.Errorf("Ascii profile: AttrSeq(bold) = %q", got)
	}
}

func TestThinkingKey(t *testing.T) {
	for level, want := range map[string]Key{"off": ThinkingOff, "": ThinkingOff, "minimal": ThinkingMinimal, "low": ThinkingLow,
		"medium": ThinkingMedium, "high": ThinkingHigh, "xhigh": ThinkingXHigh, "bogus": ThinkingOff} {
		if got := ThinkingKey(level); got != want {
			t.Errorf("ThinkingKey(%q) = %d, want %d", level, got, want)
		}
	}
}

func TestTo256(t *testing.T) {
	for _, c := range []struct {
		hex  string
		want int
	}{
		{"#283228", 236}, // pi's toolSuccessBg: a dark grey, not #005f00
		{"#343541", 237}, {"#000000", 16}, {"#ffffff", 231}, {"#5f87ff", 69}, {"#cc6666", 167}, {"#808080", 244},
	} {
		r, g, b, _ := parseHex(c.hex)
		if got := to256(r, g, b); got != c.want {
			t.Errorf("to256(%s) = %d, want %d", c.hex, got, c.want)
		}
	}
}

// pi 1.6's theme setting: "system" (the default) and "light/dark" pairs follow the terminal's
// appearance, read from COLORFGBG as pi reads it when the terminal does not report its background.
func TestResolve(t *testing.T) {
	tests := []struct{ setting, colorFGBG, want string }{
		{"", "", "dark"},
		{"system", "", "dark"},
		{"system", "0;15", "light"},
		{"system", "15;0", "dark"},
		{"system", "0;default;7", "light"},
		{"system", "7;8", "dark"}, // bright black is a dark background (Solarized Dark)
		{"system", "0;12", "light"},
		{"system", "0;16", "dark"},
		{"system", "0;+9", "dark"},
		{"light", "15;0", "light"},
		{"dark", "0;15", "dark"},
		{"light/dark", "0;15", "light"},
		{"light/dark", "15;0", "dark"},
		{"light/dark", "", "dark"},
		{"dark/light", "0;15", "dark"},
		{"my-custom", "0;15", "dark"},
	}
	for _, tt := range tests {
		if got := Resolve(tt.setting, tt.colorFGBG); got != tt.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", tt.setting, tt.colorFGBG, got, tt.want)
		}
	}
}
