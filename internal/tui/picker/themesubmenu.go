package picker

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// automaticChoice is the single-theme menu's entry that switches to automatic mode (pi's value).
const automaticChoice = "/"

// Rows of the automatic theme menu.
const (
	themeRowLight  = "light-theme"
	themeRowDark   = "dark-theme"
	themeRowApply  = "apply"
	themeRowSingle = "single-mode"
)

// ThemeSubmenu is /settings' theme submenu as pi 1.6 has it: one theme for every terminal, or
// "automatic", a light theme and a dark theme chosen by the terminal's appearance and saved as the
// setting "light/dark". A pair setting opens it in automatic mode. Every move previews the setting
// it would save (ChoicePreview); Enter on a theme or on Apply ends it with SubmenuDone, Escape
// ends it unchanged.
type ThemeSubmenu struct {
	r          *render.Renderer
	themes     []Choice // every theme, "system" first
	appearance string   // the terminal's, "light" or "dark": which side of a pair is in use
	automatic  bool
	single     string
	light      string
	dark       string
	view       Picker // the single-theme choices, or the automatic menu
}

// NewThemeSubmenu opens the submenu for the theme setting current on a terminal of the given
// appearance; themes are the themes there are (each Value a theme name).
func NewThemeSubmenu(r *render.Renderer, current, appearance string, themes []Choice) *ThemeSubmenu {
	t := &ThemeSubmenu{r: r, themes: themes, appearance: appearance}
	light, dark, pair := theme.ParsePair(current)
	fixed := ""
	if !pair && !strings.Contains(current, "/") {
		fixed = current
	}
	if !pair {
		// Automatic mode starts from the theme in use on both sides, as pi's does.
		light = t.preferred(fixed)
		dark = light
	}
	t.light, t.dark = light, dark
	if pair {
		t.single = t.preferred(t.activeAutomatic())
		t.showAutomatic()
	} else {
		t.single = t.preferred(fixed)
		t.showSingle()
	}
	return t
}

// preferred is name when there is such a theme, else "system" (pi's preferredTheme).
func (t *ThemeSubmenu) preferred(name string) string {
	for _, c := range t.themes {
		if name != "" && c.Value == name {
			return name
		}
	}
	for _, c := range t.themes {
		if c.Value == theme.SystemTheme {
			return theme.SystemTheme
		}
	}
	if len(t.themes) > 0 {
		return t.themes[0].Value
	}
	return theme.SystemTheme
}

// pair is the automatic setting as it stands.
func (t *ThemeSubmenu) pair() string { return t.light + "/" + t.dark }

// activeAutomatic is the side of the pair the terminal's appearance selects.
func (t *ThemeSubmenu) activeAutomatic() string {
	if t.appearance == "light" {
		return t.light
	}
	return t.dark
}

// showSingle shows the theme list with "automatic" after "system".
func (t *ThemeSubmenu) showSingle() {
	t.automatic = false
	choices := make([]Choice, 0, len(t.themes)+1)
	auto := Choice{Value: automaticChoice, Label: "automatic", Description: "Use separate themes for light and dark terminal appearance"}
	i := slices.IndexFunc(t.themes, func(c Choice) bool { return c.Value == theme.SystemTheme })
	if i >= 0 {
		choices = append(choices, t.themes[i], auto)
		choices = append(append(choices, t.themes[:i]...), t.themes[i+1:]...)
	} else {
		choices = append(append(choices, auto), t.themes...)
	}
	t.view = NewChoiceMenu(t.r, "Theme", "Select a theme, or choose automatic to follow terminal appearance.", choices, t.single, true)
}

// showAutomatic shows the light and dark rows, Apply and the way back to one theme.
func (t *ThemeSubmenu) showAutomatic() {
	t.automatic = true
	side := func(title, desc string) func(string) Picker {
		return func(current string) Picker { return NewChoiceMenu(t.r, title, desc, t.themes, current, true) }
	}
	list := NewSettingsList(t.r, "Automatic Theme", []Setting{
		{ID: themeRowLight, Label: "Light theme", Description: "Theme to use in automatic mode when the terminal is light",
			Value: t.light, Submenu: side("Light Theme", "Select the theme to use for light terminal appearance")},
		{ID: themeRowDark, Label: "Dark theme", Description: "Theme to use in automatic mode when the terminal is dark",
			Value: t.dark, Submenu: side("Dark Theme", "Select the theme to use for dark terminal appearance")},
		{ID: themeRowApply, Label: "Apply", Description: "Save and go back", Value: "save and go back", Values: []string{"save and go back"}},
		{ID: themeRowSingle, Label: "Change mode", Description: "Switch to one theme for light and dark",
			Value: "switch to single theme", Values: []string{"switch to single theme"}},
	})
	list.SetNotes("Choose themes for terminal light and dark appearance.", "Light/dark detection requires terminal support.")
	t.view = list
}

// Update passes msg to the menu shown and turns what it answers into the submenu's messages.
func (t *ThemeSubmenu) Update(msg tea.Msg) (Picker, tea.Cmd) {
	view, cmd := t.view.Update(msg)
	t.view = view
	if cmd == nil {
		return t, nil
	}
	out := cmd()
	if t.automatic {
		return t, t.automaticMsg(out)
	}
	switch out := out.(type) {
	case ChoicePreview:
		if out.Value == automaticChoice {
			return t, emit(ChoicePreview{Value: t.pair()})
		}
	case SubmenuDone:
		if out.Changed && out.Value == automaticChoice {
			t.showAutomatic()
			return t, emit(ChoicePreview{Value: t.pair()})
		}
	}
	return t, emit(out)
}

// automaticMsg handles an answer of the automatic menu.
func (t *ThemeSubmenu) automaticMsg(out tea.Msg) tea.Cmd {
	switch out := out.(type) {
	case SettingChanged:
		switch out.ID {
		case themeRowLight:
			t.light = out.Value
		case themeRowDark:
			t.dark = out.Value
		case themeRowApply:
			return emit(SubmenuDone{Value: t.pair(), Changed: true})
		case themeRowSingle:
			t.single = t.preferred(t.activeAutomatic())
			t.showSingle()
			return emit(ChoicePreview{Value: t.single})
		}
		return emit(ChoicePreview{Value: t.pair()})
	case SubmenuCancelled:
		// Escape in the light or dark list: back to the pair as it stands.
		return emit(ChoicePreview{Value: t.pair()})
	case Cancelled:
		return emit(SubmenuDone{})
	}
	return emit(out)
}

// View draws the menu shown.
func (t *ThemeSubmenu) View(width, rows int) []string { return t.view.View(width, rows) }
