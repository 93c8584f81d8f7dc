package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// DefaultDemoHint tells how to leave the demo model (pi-go's flags and environment).
const DefaultDemoHint = "To use a real model set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or --base-url for " +
	"an OpenAI-compatible endpoint), or pick one with --provider/--model."

// HeaderInfo is what the header at the top of the session shows.
type HeaderInfo struct {
	Version string
	// Demo says the offline demo model answers: the header carries a labelled banner.
	Demo bool
	// DemoHint is the banner's one-line advice; "" means DefaultDemoHint.
	DemoHint string
}

// Header renders "pi-go v<version>" ("pi-go dev" for a development build), a compact line of key hints and, with the demo model, a banner
// saying so and how to configure a real model.
func (r *Renderer) Header(h HeaderInfo, width int) []string {
	cw := max(width-2, 1)
	logo := r.th.Style(theme.Accent, true, false, "pi-go")
	if v := versionLabel(h.Version); v != "" {
		logo += r.th.Fg(theme.Dim, " "+v)
	}
	k := r.keys
	hints := []string{
		r.keyHint(k.Interrupt, "interrupt"),
		r.keyHint(k.Clear+"/"+k.Exit, "clear/exit"),
		r.keyHint("/", "commands"),
		r.keyHint("!", "bash"),
		r.keyHint(k.FollowUp, "follow-up"),
		r.keyHint(k.Expand, "expand tools"),
		r.keyHint(k.ToggleThinking, "thinking"),
	}
	out := []string{""}
	out = append(out, padLeft(wrap(logo, cw), width)...)
	out = append(out, padLeft(joinWrapped(hints, r.th.Fg(theme.Muted, " · "), cw), width)...)
	if h.Demo {
		hint := h.DemoHint
		if hint == "" {
			hint = DefaultDemoHint
		}
		bar := r.th.Fg(theme.Warning, "▌") + " "
		barW := 2
		title := r.th.Style(theme.Warning, true, false, "DEMO MODEL") +
			r.th.Fg(theme.Warning, " · offline canned answers, no real model is configured")
		out = append(out, "")
		for _, l := range wrap(title, max(cw-barW, 1)) {
			out = append(out, padLeft([]string{Truncate(bar+l, cw, "")}, width)...)
		}
		for _, l := range wrap(r.th.Fg(theme.Muted, oneLine(hint)), max(cw-barW, 1)) {
			out = append(out, padLeft([]string{Truncate(bar+l, cw, "")}, width)...)
		}
	}
	return out
}

// versionLabel is how the header names a version: "v1.2.3" for a release number (with or without
// its "v"), anything else ("dev", "(devel)", a commit) as it is.
func versionLabel(version string) string {
	v := strings.TrimSpace(oneLine(version))
	if n := strings.TrimPrefix(v, "v"); n != "" && n[0] >= '0' && n[0] <= '9' {
		return "v" + n
	}
	return v
}

// joinWrapped joins items with sep, starting a new line instead of splitting an item.
func joinWrapped(items []string, sep string, width int) []string {
	var out []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case Width(line)+Width(sep)+Width(it) <= width:
			line += sep + it
		default:
			out = append(out, line)
			line = it
		}
	}
	if line != "" {
		out = append(out, line)
	}
	var fitted []string
	for _, l := range out {
		fitted = append(fitted, wrap(l, width)...)
	}
	return fitted
}
