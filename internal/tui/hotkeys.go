package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// capitalizeKey writes a key name as pi's /hotkeys does: "ctrl+c" → "Ctrl+C".
func capitalizeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, p := range parts {
		sub := strings.Split(p, "+")
		for j, s := range sub {
			if s != "" {
				sub[j] = strings.ToUpper(s[:1]) + s[1:]
			}
		}
		parts[i] = strings.Join(sub, "+")
	}
	return strings.Join(parts, "/")
}

// hotkeyRow is one /hotkeys line: the actions whose keys it lists, and what they do.
type hotkeyRow struct {
	ids  []string
	desc string
}

// hotkeyGroups are pi's /hotkeys sections, with the actions pi-go performs, then the fullscreen
// transcript's keys (listed in fullscreen mode only, where they act; pi 1.6 lists them in its
// keybindings.md alone).
var hotkeyGroups = []struct {
	title      string
	rows       []hotkeyRow
	fullscreen bool
}{
	{"Navigation", []hotkeyRow{
		{[]string{keymap.EditorCursorUp, keymap.EditorCursorDown, keymap.EditorCursorLeft, keymap.EditorCursorRight}, "Move cursor / browse history"},
		{[]string{keymap.EditorCursorWordLeft, keymap.EditorCursorWordRight}, "Move by word"},
		{[]string{keymap.EditorCursorLineStart}, "Start of line"},
		{[]string{keymap.EditorCursorLineEnd}, "End of line"},
		{[]string{keymap.EditorHistoryPrevious, keymap.EditorHistoryNext}, "Previous / next prompt from history"},
	}, false},
	{"Editing", []hotkeyRow{
		{[]string{keymap.InputSubmit}, "Send message"},
		{[]string{keymap.InputNewLine}, "New line"},
		{[]string{keymap.EditorDeleteCharBackward, keymap.EditorDeleteCharForward}, "Delete character backwards / forwards"},
		{[]string{keymap.EditorDeleteWordBackward}, "Delete word backwards"},
		{[]string{keymap.EditorDeleteWordForward}, "Delete word forwards"},
		{[]string{keymap.EditorDeleteToLineStart}, "Delete to start of line"},
		{[]string{keymap.EditorDeleteToLineEnd}, "Delete to end of line"},
		{[]string{keymap.EditorYank}, "Paste the most-recently-deleted text"},
		{[]string{keymap.EditorYankPop}, "Cycle through the deleted text after pasting"},
		{[]string{keymap.EditorUndo}, "Undo"},
	}, false},
	{"Other", []hotkeyRow{
		{[]string{keymap.InputTab}, "Path completion / accept autocomplete"},
		{[]string{keymap.AppInterrupt}, "Cancel autocomplete / abort streaming"},
		{[]string{keymap.AppClear}, "Clear editor (first) / exit (second)"},
		{[]string{keymap.AppExit}, "Exit (when editor is empty)"},
		{[]string{keymap.AppSuspend}, "Suspend to background"},
		{[]string{keymap.AppThinkingCycle}, "Cycle thinking level"},
		{[]string{keymap.AppModelCycle}, "Cycle models"},
		{[]string{keymap.AppModelSelect}, "Open model selector"},
		{[]string{keymap.AppToolsExpand}, "Toggle tool output expansion"},
		{[]string{keymap.AppThinkingToggle}, "Toggle thinking block visibility"},
		{[]string{keymap.AppEditorExternal}, "Edit message in external editor"},
		{[]string{keymap.AppFollowUp}, "Queue follow-up message"},
		{[]string{keymap.AppDequeue}, "Restore queued messages"},
		{[]string{keymap.AppSessionNew}, "Start a new session"},
		{[]string{keymap.AppSessionTree}, "Open session tree"},
		{[]string{keymap.AppSessionFork}, "Fork current session"},
		{[]string{keymap.AppSessionResume}, "Resume a session"},
		{nil, "/ Slash commands"},
		{nil, "! Run bash command"},
		{nil, "!! Run bash command (excluded from context)"},
	}, false},
	{"Fullscreen", []hotkeyRow{
		{[]string{"tui.altScreen.pageUp", "tui.altScreen.pageDown"}, "Scroll the transcript by a page"},
		{[]string{"tui.altScreen.halfPageUp", "tui.altScreen.halfPageDown"}, "Scroll the transcript by half a page"},
		{[]string{"tui.altScreen.lineUp", "tui.altScreen.lineDown"}, "Scroll the transcript by a line"},
		{[]string{"tui.altScreen.previousPrompt"}, "Jump to the previous prompt"},
		{[]string{"tui.altScreen.nextPrompt"}, "Jump to the next prompt"},
		{[]string{"tui.altScreen.top"}, "Scroll to the beginning"},
		{[]string{"tui.altScreen.bottom"}, "Scroll to the end and follow new output"},
		{[]string{"tui.altScreen.search"}, "Search the transcript"},
		{[]string{"tui.altScreen.searchNext"}, "Next match while searching"},
		{[]string{"tui.altScreen.searchPrevious"}, "Previous match while searching"},
		{[]string{"tui.altScreen.searchClose"}, "Close the search"},
		{nil, "Wheel Scroll the transcript"},
		{nil, "Drag Select and copy text"},
	}, true},
}

// hotkeysView is /hotkeys: pi's sections listed by bubbles help from the live keymap, so a rebound
// key shows as bound and a disabled action not at all; the fullscreen section in fullscreen mode.
func hotkeysView(km *keymap.Keymap, th *theme.Theme, width int, fullscreen bool) []string {
	h := help.New()
	h.Width = width
	h.FullSeparator = "  "
	h.Styles.FullKey = th.FgStyle(theme.MdCode)
	h.Styles.FullDesc = th.FgStyle(theme.Text)
	h.Styles.FullSeparator = th.FgStyle(theme.Muted)
	var out []string
	for i, g := range hotkeyGroups {
		if g.fullscreen && !fullscreen {
			continue
		}
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, th.Style(theme.Text, true, false, g.title))
		var rows []key.Binding
		for _, r := range g.rows {
			if r.ids == nil { // a typed prefix, not a key binding
				k, desc, _ := strings.Cut(r.desc, " ")
				rows = append(rows, key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)))
				continue
			}
			var keys []string
			for _, id := range r.ids {
				keys = append(keys, km.Keys(id)...)
			}
			if len(keys) == 0 {
				continue // disabled
			}
			rows = append(rows, key.NewBinding(key.WithKeys(keys...), key.WithHelp(capitalizeKey(strings.Join(keys, "/")), r.desc)))
		}
		out = append(out, strings.Split(h.FullHelpView([][]key.Binding{rows}), "\n")...)
	}
	return out
}
