package export

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Theme is the colour scheme of the page: pi's theme keys ("accent", "userMessageBg",
// "syntaxKeyword", ...) to "#rrggbb" colours, as the TUI's theme holds them. Keys left out (the
// terminal's default colour in the TUI) get the page's default for a dark or light background.
type Theme struct {
	Name   string
	Dark   bool
	Colors map[string]string
}

// defaults are used for keys a theme leaves to the terminal (text) or does not know.
func (t Theme) defaults() map[string]string {
	if t.Dark {
		return map[string]string{"text": "#e4e4e4", "userMessageText": "#e4e4e4", "customMessageText": "#e4e4e4",
			"toolTitle": "#e4e4e4", "userMessageBg": "#343541", "accent": "#8abeb7", "muted": "#808080",
			"dim": "#666666", "error": "#cc6666", "success": "#b5bd68", "warning": "#ffff00"}
	}
	return map[string]string{"text": "#1f1f1f", "userMessageText": "#1f1f1f", "customMessageText": "#1f1f1f",
		"toolTitle": "#1f1f1f", "userMessageBg": "#e8e8e8", "accent": "#5a8080", "muted": "#6c6c6c",
		"dim": "#767676", "error": "#aa5555", "success": "#588458", "warning": "#9a7326"}
}

// cssVars writes the theme as CSS custom properties (--c-<key>), plus the page, card and info
// backgrounds derived from the user message background.
func (t Theme) cssVars() string {
	colors := t.defaults()
	for k, v := range t.Colors {
		if isCSSColor(v) {
			colors[k] = v
		}
	}
	keys := make([]string, 0, len(colors))
	for k := range colors {
		if isCSSIdent(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(":root{color-scheme:")
	if t.Dark {
		b.WriteString("dark")
	} else {
		b.WriteString("light")
	}
	b.WriteString(";")
	for _, k := range keys {
		fmt.Fprintf(&b, "--c-%s:%s;", k, colors[k])
	}
	page, card, info := derivedBackgrounds(colors["userMessageBg"], t.Dark)
	fmt.Fprintf(&b, "--page-bg:%s;--card-bg:%s;--info-bg:%s}", page, card, info)
	return b.String()
}

// derivedBackgrounds darkens (dark themes) or lightens the user message background into the page
// background, and a little less into the cards', so messages stand out as they do in the terminal.
func derivedBackgrounds(base string, dark bool) (page, card, info string) {
	r, g, b, ok := parseHex(base)
	if !ok {
		if dark {
			return "#18181e", "#1e1e24", "#3c3728"
		}
		return "#f6f6f6", "#ffffff", "#fff8e0"
	}
	scale := func(f float64) string {
		c := func(v int) int { return min(255, max(0, int(float64(v)*f+0.5))) }
		return fmt.Sprintf("#%02x%02x%02x", c(r), c(g), c(b))
	}
	if dark {
		return scale(0.7), scale(0.85), fmt.Sprintf("#%02x%02x%02x", min(255, r+20), min(255, g+15), b)
	}
	return scale(0.96), base, fmt.Sprintf("#%02x%02x%02x", min(255, r+10), min(255, g+5), max(0, b-20))
}

func parseHex(c string) (r, g, b int, ok bool) {
	if !isCSSColor(c) {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff), true
}

// isCSSColor accepts "#rrggbb" only: a colour goes into a style sheet verbatim.
func isCSSColor(c string) bool {
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	for _, ch := range c[1:] {
		if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F') {
			return false
		}
	}
	return true
}

func isCSSIdent(k string) bool {
	if k == "" {
		return false
	}
	for _, ch := range k {
		if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '-' || ch == '_') {
			return false
		}
	}
	return true
}
