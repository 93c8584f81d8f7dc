package theme

import (
	"strconv"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

func TestBuiltinThemesMatchPi(t *testing.T) {
	f := loadPiColors(t)
	for _, name := range []string{"dark", "light"} {
		spec, ok := Builtin(name)
		if !ok {
			t.Fatalf("no built-in %s theme", name)
		}
		if spec.Appearance != name {
			t.Errorf("%s: appearance %q", name, spec.Appearance)
		}
		want := f.Themes[name]
		if len(want) != int(numKeys) {
			t.Errorf("%s: pi's file has %d tokens, pi-go knows %d", name, len(want), numKeys)
		}
		for k := range Key(numKeys) {
			c, ok := spec.Color(k)
			got := ""
			if ok {
				got = c.Hex()
			}
			if got != want[k.Name()] {
				t.Errorf("%s.%s = %q, pi: %q", name, k.Name(), got, want[k.Name()])
			}
		}
	}
}

func TestProfiles(t *testing.T) {
	dark, _ := Builtin("dark")
	red, _ := dark.Color(Error)
	r, g, b := red.RGB()
	if got, want := Dark(termenv.TrueColor).Fg(Error, "x"), "\x1b[38;2;"+itoa(r)+";"+itoa(g)+";"+itoa(b)+"mx"+Reset; got != want {
		t.Errorf("truecolor error fg = %q, want %q", got, want)
	}
	if got, want := Dark(termenv.ANSI256).Bg(UserMessageBg, "x"), "\x1b[48;5;"+itoa(mustColor(dark, UserMessageBg).ANSI256())+"mx"+Reset; got != want {
		t.Errorf("256-colour user bg = %q, want %q", got, want)
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
	if got := Light(termenv.ANSI256).Style(Text, true, false, "x"); !strings.HasPrefix(got, "\x1b[38;5;") || !strings.Contains(got, "\x1b[1m") {
		t.Errorf("bold text = %q", got)
	}
	if got := Dark(termenv.TrueColor).FgStyle(Accent).Render("x"); got != Dark(termenv.TrueColor).Fg(Accent, "x") {
		t.Errorf("FgStyle renders %q, Fg %q", got, Dark(termenv.TrueColor).Fg(Accent, "x"))
	}
}

func mustColor(s *Spec, k Key) Color {
	c, _ := s.Color(k)
	return c
}

func itoa[T ~uint8 | ~int](v T) string { return strconv.Itoa(int(v)) }

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
		"medium": ThinkingMedium, "high": ThinkingHigh, "xhigh": ThinkingXHigh, "max": ThinkingMax, "bogus": ThinkingOff} {
		if got := ThinkingKey(level); got != want {
			t.Errorf("ThinkingKey(%q) = %d, want %d", level, got, want)
		}
	}
}

// pi 1.6's theme setting: "system" (the default) and "light/dark" pairs follow the terminal's
// appearance.
func TestPick(t *testing.T) {
	tests := []struct{ setting, appearance, want string }{
		{"", "dark", "system"},
		{"system", "light", "system"},
		{"light", "dark", "light"},
		{"my-theme", "dark", "my-theme"},
		{"light/dark", "light", "light"},
		{"light/dark", "dark", "dark"},
		{" solar-light / solar-dark ", "light", "solar-light"},
		{"a/b/c", "dark", "system"},
		{"/dark", "dark", "system"},
	}
	for _, tt := range tests {
		if got := Pick(tt.setting, tt.appearance); got != tt.want {
			t.Errorf("Pick(%q, %q) = %q, want %q", tt.setting, tt.appearance, got, tt.want)
		}
	}
}

func TestTerminalAppearance(t *testing.T) {
	black, white, grey := &RGB{0, 0, 0}, &RGB{255, 255, 255}, &RGB{128, 128, 128}
	tests := []struct {
		bg, fg    *RGB
		colorFGBG string
		want      string
	}{
		{nil, nil, "", "dark"},
		{nil, nil, "0;15", "light"},
		{nil, nil, "15;0", "dark"},
		{nil, nil, "0;default;7", "light"},
		{nil, nil, "7;8", "dark"}, // bright black is a dark background (Solarized Dark)
		{nil, nil, "0;12", "light"},
		{nil, nil, "0;16", "dark"},
		{nil, nil, "0;+9", "dark"},
		{black, nil, "0;15", "dark"}, // a reported background beats COLORFGBG
		{white, nil, "", "light"},
		{&RGB{0xfd, 0xf6, 0xe3}, &RGB{0x65, 0x7b, 0x83}, "", "light"}, // Solarized Light
		{&RGB{0x28, 0x2c, 0x34}, &RGB{0xab, 0xb2, 0xbf}, "", "dark"},  // One Dark
		{grey, white, "", "light"},                                    // white text is unreadable on mid grey: black wins
		{grey, nil, "", "light"},
	}
	for _, tt := range tests {
		if got := TerminalAppearance(tt.bg, tt.fg, tt.colorFGBG); got != tt.want {
			t.Errorf("TerminalAppearance(%v, %v, %q) = %q, want %q", tt.bg, tt.fg, tt.colorFGBG, got, tt.want)
		}
	}
}
