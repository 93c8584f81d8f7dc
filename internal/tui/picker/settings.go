package picker

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Setting is one row of a SettingsList: a label, its current value and how it changes. Enter or
// Space moves a row with Values to the next value; a row with a Submenu opens it instead.
type Setting struct {
	ID          string
	Label       string
	Description string // shown under the list for the row under the cursor
	Value       string
	Values      []string
	// Submenu opens the row's own picker; it closes with SubmenuDone.
	Submenu func(current string) Picker
}

// Messages of the settings list.
type (
	// SettingChanged: a row took a new value; the list stays open.
	SettingChanged struct{ ID, Value string }
	// SubmenuDone closes a row's submenu: with Changed the row takes Value (and SettingChanged is
	// sent), without it nothing changes.
	SubmenuDone struct {
		Value   string
		Changed bool
	}
	// SubmenuCancelled: the row's submenu closed without a choice (a preview is to be undone).
	SubmenuCancelled struct{ ID string }
)

// SettingsList is /settings: pi's settings list, searchable, each row a setting and its value.
type SettingsList struct {
	r      *render.Renderer
	title  string
	notes  []string // muted lines under the title
	items  []Setting
	shown  []int
	query  filterField
	cursor int
	// sub is the open submenu, subItem the row it belongs to.
	sub     Picker
	subItem int
}

// NewSettingsList returns the list of items.
func NewSettingsList(r *render.Renderer, title string, items []Setting) *SettingsList {
	s := &SettingsList{r: r, title: title, items: items, query: newFilterField()}
	s.filter()
	return s
}

// SetNotes puts muted lines under the title (pi's automatic theme menu explains itself so).
func (s *SettingsList) SetNotes(notes ...string) { s.notes = notes }

// SetValue shows value for the row id (a change the owner undid or adjusted).
func (s *SettingsList) SetValue(id, value string) {
	for i := range s.items {
		if s.items[i].ID == id {
			s.items[i].Value = value
		}
	}
}

func (s *SettingsList) filter() {
	idx := make([]int, len(s.items))
	for i := range idx {
		idx[i] = i
	}
	s.shown = FuzzyFilter(idx, s.query.Value(), func(i int) string { return s.items[i].Label })
	s.cursor = 0
}

// Update applies a key, or passes it to the open submenu.
func (s *SettingsList) Update(msg tea.Msg) (Picker, tea.Cmd) {
	if s.sub != nil {
		return s, s.updateSub(msg)
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return s, nil
	}
	switch name := editor.KeyName(k); {
	case name == "esc" || name == "ctrl+c":
		return s, emit(Cancelled{})
	case name == "up" || name == "ctrl+p":
		if len(s.shown) > 0 {
			s.cursor = (s.cursor - 1 + len(s.shown)) % len(s.shown)
		}
	case name == "down" || name == "ctrl+n":
		if len(s.shown) > 0 {
			s.cursor = (s.cursor + 1) % len(s.shown)
		}
	case name == "pgup":
		s.cursor = max(s.cursor-settingsRows, 0)
	case name == "pgdown":
		s.cursor = max(min(s.cursor+settingsRows, len(s.shown)-1), 0)
	case name == "enter" || k.Type == tea.KeySpace && s.query.Value() == "":
		return s, s.activate()
	default:
		if s.query.Key(k) {
			s.filter()
		}
	}
	return s, nil
}

// activate changes the row under the cursor: the next value, or its submenu.
func (s *SettingsList) activate() tea.Cmd {
	if len(s.shown) == 0 {
		return nil
	}
	i := s.shown[s.cursor]
	it := &s.items[i]
	if it.Submenu != nil {
		s.sub, s.subItem = it.Submenu(it.Value), i
		return nil
	}
	if len(it.Values) == 0 {
		return nil
	}
	next := (slices.Index(it.Values, it.Value) + 1) % len(it.Values)
	it.Value = it.Values[next]
	return emit(SettingChanged{ID: it.ID, Value: it.Value})
}

// updateSub passes msg to the submenu. Its SubmenuDone closes it here; every other message of it
// (a preview, say) goes on to the owner.
func (s *SettingsList) updateSub(msg tea.Msg) tea.Cmd {
	sub, cmd := s.sub.Update(msg)
	s.sub = sub
	if cmd == nil {
		return nil
	}
	out := cmd()
	done, ok := out.(SubmenuDone)
	if !ok {
		return emit(out)
	}
	s.sub = nil
	it := &s.items[s.subItem]
	if !done.Changed {
		return emit(SubmenuCancelled{ID: it.ID})
	}
	it.Value = done.Value
	return emit(SettingChanged{ID: it.ID, Value: it.Value})
}

// settingsRows is how many rows the list shows at most (pi's 10).
const settingsRows = 10

// View draws the list, or the open submenu.
func (s *SettingsList) View(width, rows int) []string {
	if s.sub != nil {
		return s.sub.View(width, rows)
	}
	th := s.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, s.title), width)}
	if len(s.notes) > 0 {
		out = append(out, "")
		for _, n := range s.notes {
			out = append(out, truncate(" "+th.Fg(theme.Muted, n), width))
		}
		out = append(out, "")
	}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "Search: ")+s.query.View(th, th.PlainStyle()), width), "")
	visible := max(min(settingsRows, rows-9), 3)
	if len(s.shown) == 0 {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "No matching settings"), width))
	}
	labelWidth := 0
	for _, it := range s.items {
		labelWidth = max(labelWidth, render.Width(it.Label))
	}
	labelWidth = min(labelWidth, 36)
	start := max(0, min(s.cursor-visible/2, len(s.shown)-visible))
	end := min(start+visible, len(s.shown))
	for i := start; i < end; i++ {
		it := s.items[s.shown[i]]
		label := it.Label + strings.Repeat(" ", max(labelWidth-render.Width(it.Label), 0))
		prefix, value := "  ", th.Fg(theme.Muted, it.Value)
		if i == s.cursor {
			prefix, label, value = th.Fg(theme.Accent, "→ "), th.Fg(theme.Accent, label), th.Fg(theme.Accent, it.Value)
		}
		out = append(out, truncate(prefix+label+"  "+value, width))
	}
	if start > 0 || end < len(s.shown) {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "("+itoa(s.cursor+1)+"/"+itoa(len(s.shown))+")"), width))
	}
	if len(s.shown) > 0 {
		if d := s.items[s.shown[s.cursor]].Description; d != "" {
			out = append(out, "")
			for _, l := range render.Wrap(d, max(width-4, 10)) {
				out = append(out, truncate("  "+th.Fg(theme.Muted, l), width))
			}
		}
	}
	out = append(out, "", truncate("  "+th.Fg(theme.Dim, "Type to search · Enter/Space to change · Esc to cancel"), width))
	return append(out, rule)
}

// Choice is one entry of a ChoiceMenu.
type Choice struct {
	Value       string
	Label       string // "" shows Value
	Description string
}

// ChoicePreview is sent when the cursor of a ChoiceMenu with previews lands on a choice (a theme
// shown live before it is chosen).
type ChoicePreview struct{ Value string }

// ChoiceMenu is a setting's submenu of choices (pi's SelectSubmenu): Enter picks one, Escape goes
// back; both end with SubmenuDone. With previews the owner hears of every move.
type ChoiceMenu struct {
	r           *render.Renderer
	title, desc string
	choices     []Choice
	current     string
	cursor      int
	preview     bool
}

// NewChoiceMenu returns the menu with the cursor on current.
func NewChoiceMenu(r *render.Renderer, title, desc string, choices []Choice, current string, preview bool) *ChoiceMenu {
	c := &ChoiceMenu{r: r, title: title, desc: desc, choices: choices, current: current, preview: preview}
	for i, ch := range choices {
		if ch.Value == current {
			c.cursor = i
		}
	}
	return c
}

// Update applies a key.
func (c *ChoiceMenu) Update(msg tea.Msg) (Picker, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(c.choices) == 0 {
		if ok && (editor.KeyName(k) == "esc" || editor.KeyName(k) == "ctrl+c") {
			return c, emit(SubmenuDone{})
		}
		return c, nil
	}
	moved := false
	switch editor.KeyName(k) {
	case "esc", "ctrl+c":
		return c, emit(SubmenuDone{})
	case "enter":
		return c, emit(SubmenuDone{Value: c.choices[c.cursor].Value, Changed: true})
	case "up", "ctrl+p":
		c.cursor, moved = (c.cursor-1+len(c.choices))%len(c.choices), true
	case "down", "ctrl+n":
		c.cursor, moved = (c.cursor+1)%len(c.choices), true
	}
	if moved && c.preview {
		return c, emit(ChoicePreview{Value: c.choices[c.cursor].Value})
	}
	return c, nil
}

// View draws the title, the description and the choices.
func (c *ChoiceMenu) View(width, rows int) []string {
	th := c.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, c.title), width)}
	if c.desc != "" {
		out = append(out, truncate(" "+th.Fg(theme.Muted, c.desc), width))
	}
	out = append(out, "")
	visible := max(rows-7, 3)
	start := max(0, min(c.cursor-visible/2, len(c.choices)-visible))
	end := min(start+visible, len(c.choices))
	for i := start; i < end; i++ {
		ch := c.choices[i]
		label := ch.Label
		if label == "" {
			label = ch.Value
		}
		mark := "  "
		if ch.Value == c.current {
			mark = "✓ "
		}
		prefix, text := "  ", mark+label
		if i == c.cursor {
			prefix, text = th.Fg(theme.Accent, "→ "), th.Fg(theme.Accent, text)
		}
		line := prefix + text
		if ch.Description != "" {
			line += "  " + th.Fg(theme.Muted, ch.Description)
		}
		out = append(out, truncate(line, width))
	}
	out = append(out, "", truncate("  "+th.Fg(theme.Dim, "Enter to select · Esc to go back"), width))
	return append(out, rule)
}
