package theme

import "github.com/muesli/termenv"

// Colors returns the theme's palette by pi's token names (for the HTML export), whatever the
// terminal's colour profile; tokens left to the terminal's default colour are left out.
func (t *Theme) Colors() map[string]string {
	out := make(map[string]string, numKeys)
	for k := range Key(numKeys) {
		if c, ok := t.spec.Color(k); ok {
			out[k.Name()] = c.Hex()
		}
	}
	return out
}

// Named returns the built-in theme a "theme" setting selects when no terminal can be asked (the
// HTML export from the command line or RPC): the terminal's appearance comes from COLORFGBG alone,
// and a name that is not built in gives the built-in theme of that appearance.
func Named(setting, colorFGBG string) *Theme {
	appearance := TerminalAppearance(nil, nil, colorFGBG)
	spec, ok := Builtin(Pick(setting, appearance))
	if !ok {
		spec, _ = Builtin(appearance)
	}
	return New(spec, termenv.TrueColor, appearance)
}
