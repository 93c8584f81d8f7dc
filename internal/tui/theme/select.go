package theme

import (
	"math"
	"strconv"
	"strings"
)

// SystemTheme is the theme setting's default, "system": follow the terminal's appearance.
const SystemTheme = "system"

// Pick is the theme name a theme setting selects on a terminal of the given appearance ("dark" or
// "light"), as pi 1.6 reads the setting: a "light/dark" pair takes its first name on a light
// terminal and its second on a dark one; an empty setting is "system"; a malformed pair (more than
// one "/", an empty side) is "system" too.
func Pick(setting, appearance string) string {
	setting = strings.TrimSpace(setting)
	if setting == "" {
		return SystemTheme
	}
	light, dark, ok := ParsePair(setting)
	switch {
	case !ok && strings.Contains(setting, "/"):
		return SystemTheme
	case !ok:
		return setting
	case appearance == "light":
		return light
	}
	return dark
}

// ParsePair reads an automatic theme setting, "light/dark" (pi 1.6's parseAutoThemeSetting): ok
// is false for a plain name and for a malformed pair (more than one "/", an empty side).
func ParsePair(setting string) (light, dark string, ok bool) {
	light, dark, pair := strings.Cut(setting, "/")
	if !pair || strings.Contains(dark, "/") {
		return "", "", false
	}
	light, dark = strings.TrimSpace(light), strings.TrimSpace(dark)
	if light == "" || dark == "" {
		return "", "", false
	}
	return light, dark, true
}

// RGB is a colour the terminal reported (OSC 10/11).
type RGB struct{ R, G, B uint8 }

// TerminalAppearance is "dark" or "light" for a terminal: from its reported background (and
// foreground) when it answered, else from COLORFGBG ("fg;bg" or "fg;xpm;bg", the background's
// palette index last: 0-6 and 8 are dark, 7 and 9-15 light), else dark, in pi's order.
func TerminalAppearance(background, foreground *RGB, colorFGBG string) string {
	if background != nil {
		return appearanceOf(*background, foreground)
	}
	parts := strings.Split(colorFGBG, ";")
	bg := strings.TrimSpace(parts[len(parts)-1])
	if n, err := strconv.Atoi(bg); err == nil && len(bg) <= 2 && bg[0] >= '0' && n <= 15 {
		if n <= 6 || n == 8 {
			return "dark"
		}
		return "light"
	}
	return "dark"
}

// appearanceOf classifies a reported background as pi does: the direction of the terminal's own
// foreground when text can be read that way (WCAG contrast 4.5), otherwise whichever of white and
// black text has more contrast on the background.
func appearanceOf(bg RGB, fg *RGB) string {
	white, black := RGB{255, 255, 255}, RGB{}
	whiteContrast, blackContrast := contrast(white, bg), contrast(black, bg)
	if fg != nil {
		fgL := rgbToOklab(float64(fg.R), float64(fg.G), float64(fg.B))[0]
		bgL := rgbToOklab(float64(bg.R), float64(bg.G), float64(bg.B))[0]
		if math.Abs(fgL-bgL) > 0.05 {
			appearance, best := "light", blackContrast
			if fgL > bgL {
				appearance, best = "dark", whiteContrast
			}
			if best >= 4.5 {
				return appearance
			}
		}
	}
	if whiteContrast >= blackContrast {
		return "dark"
	}
	return "light"
}

func luminance(c RGB) float64 {
	lin := func(v uint8) float64 { return srgbToLinear(float64(v) / 255) }
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

func contrast(a, b RGB) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}
