package theme

import (
	"strconv"
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

func TestMarkdownStyle(t *testing.T) {
	for _, th := range []*Theme{Dark(termenv.ANSI256), Light(termenv.ANSI256)} {
		s := th.MarkdownStyle(MarkdownText)
		if s.Document.Margin == nil || *s.Document.Margin != 0 || s.Document.BlockPrefix != "" || s.Document.Color != nil {
			t.Errorf("%s: document style %+v", th.Name(), s.Document)
		}
		if s.CodeBlock.Chroma == nil {
			t.Errorf("%s: no chroma colours for code blocks", th.Name())
		}
		thinking := th.MarkdownStyle(MarkdownThinking)
		r, g, b, _ := parseHex(th.Color(ThinkingText))
		if thinking.Document.Italic == nil || !*thinking.Document.Italic || *thinking.Document.Color != strconv.Itoa(to256(r, g, b)) {
			t.Errorf("%s: thinking style %+v", th.Name(), thinking.Document)
		}
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
