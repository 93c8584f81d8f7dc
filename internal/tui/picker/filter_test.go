package picker

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

// The search line is a text input: the cursor moves in it and edits happen there; keys with Alt and
// keys the terminal reported by name type nothing; a space is typed.
func TestListSearchIsATextInput(t *testing.T) {
	p := Models(testRenderer(), []*provider.Model{otherModel, testModel}, testModel, "")
	sendNone(t, p, typing("oter")...)
	sendNone(t, p, keyOf(tea.KeyLeft), keyOf(tea.KeyLeft))
	sendNone(t, p, typing("h")...) // "oter" → "other", typed before the cursor
	sendNone(t, p, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ctrl+shift+f")})
	mustContain(t, view(p, 80, 12), "Search: other", " → other-model [test]")
	sendNone(t, p, keyOf(tea.KeyEnd), keyOf(tea.KeySpace), keyOf(tea.KeyBackspace), keyOf(tea.KeyCtrlW))
	mustContain(t, view(p, 80, 12), "Search:", " → test-model ✓ [test]", "   other-model [test]")
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != (ModelChosen{Model: testModel}) {
		t.Fatalf("Enter with the search cleared = %#v", got)
	}
}
