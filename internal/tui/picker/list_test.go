package picker

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

var (
	testModel  = &provider.Model{ID: "test-model", Name: "Test", Provider: "test"}
	otherModel = &provider.Model{ID: "other-model", Name: "Other", Provider: "test"}
)

func TestModelsSearchAndChoose(t *testing.T) {
	p := Models(testRenderer(), []*provider.Model{otherModel, testModel}, testModel, "")
	mustContain(t, view(p, 80, 12), "Select model", "   other-model [test]", " → test-model ✓ [test]")
	sendNone(t, p, typing("oth")...)
	v := view(p, 80, 12)
	mustContain(t, v, "Search: oth", " → other-model [test]")
	if strings.Contains(v, "test-model") {
		t.Fatalf("the search did not filter:\n%s", v)
	}
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != (ModelChosen{Model: otherModel}) {
		t.Fatalf("Enter = %#v", got)
	}
}

func TestModelsOpenWithASearch(t *testing.T) {
	p := Models(testRenderer(), []*provider.Model{otherModel, testModel}, testModel, "xyz")
	mustContain(t, view(p, 120, 12), "Search: xyz", "No models available.")
	sendNone(t, p, keyOf(tea.KeyEnter)) // nothing to choose
	sendNone(t, p, keyOf(tea.KeyCtrlU))
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != (ModelChosen{Model: testModel}) {
		t.Fatalf("Enter after clearing the search = %#v (the cursor starts on the current model)", got)
	}
}

func TestListMovesWrapAndEscapeCancels(t *testing.T) {
	levels := []provider.ThinkingLevel{provider.ThinkingOff, provider.ThinkingLow, provider.ThinkingHigh}
	p := ThinkingLevels(testRenderer(), levels, provider.ThinkingOff)
	if got := sendOne(t, p, keyOf(tea.KeyUp), keyOf(tea.KeyEnter)); got != (ThinkingChosen{Level: provider.ThinkingHigh}) {
		t.Fatalf("Up from the first level wraps to the last: %#v", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeyEnter)); got != (ThinkingChosen{Level: provider.ThinkingLow}) {
		t.Fatalf("Down twice from the last: %#v", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyEsc)); got != (Cancelled{}) {
		t.Fatalf("Escape = %#v", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyCtrlC)); got != (Cancelled{}) {
		t.Fatalf("Ctrl+C = %#v", got)
	}
}

func TestForkStartsOnTheNewestMessage(t *testing.T) {
	p := Fork(testRenderer(), []ForkPoint{{EntryID: "e1", Text: "first\n  question"}, {EntryID: "e2", Text: "second"}})
	mustContain(t, view(p, 80, 12), "Fork from message", "   first question", " → second", "enter fork")
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != (ForkChosen{EntryID: "e2"}) {
		t.Fatalf("Enter = %#v", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyUp), keyOf(tea.KeyEnter)); got != (ForkChosen{EntryID: "e1"}) {
		t.Fatalf("Up, Enter = %#v", got)
	}
}

type backMsg struct{}

func TestListWithItsOwnMessages(t *testing.T) {
	p := NewList(testRenderer(), "Pick", []Item{{Label: "a", Value: 1}, {Label: "b", Value: 2}},
		func(it Item) tea.Msg { return it.Value })
	p.SetCancel(backMsg{})
	if got := sendOne(t, p, keyOf(tea.KeyDown), keyOf(tea.KeyEnter)); got != 2 {
		t.Fatalf("Enter = %#v", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyEsc)); got != (backMsg{}) {
		t.Fatalf("Escape = %#v", got)
	}
	sendNone(t, p, Size{Width: 80, Rows: 3}, struct{}{})
}

func TestListViewScrollsAndCounts(t *testing.T) {
	var items []Item
	for i := 0; i < 30; i++ {
		items = append(items, Item{Label: "item " + itoa(i)})
	}
	p := NewList(testRenderer(), "Many", items, func(Item) tea.Msg { return nil })
	sendNone(t, p, keyOf(tea.KeyPgDown), keyOf(tea.KeyPgDown))
	v := view(p, 60, 10) // 5 rows of items
	mustContain(t, v, " → item 20", "(21/30)")
	if strings.Contains(v, "item 15") {
		t.Fatalf("rows above the window are shown:\n%s", v)
	}
	if n := len(p.View(60, 10)); n != 10 {
		t.Fatalf("the list takes %d rows of 10", n)
	}
}

func TestTextInputSubmitsTrimmedText(t *testing.T) {
	p := NewTextInput(testRenderer(), "Instructions", func(text string) tea.Msg { return text }, backMsg{})
	msgs := append(typing(" keep "), keyOf(tea.KeyCtrlJ))
	msgs = append(msgs, typing("short ")...)
	sendNone(t, p, msgs...)
	mustContain(t, view(p, 60, 10), "Instructions", " keep", "short", "enter submit")
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != "keep \nshort" {
		t.Fatalf("Enter = %q", got)
	}
	if got := sendOne(t, p, keyOf(tea.KeyEsc)); got != (backMsg{}) {
		t.Fatalf("Escape = %#v", got)
	}
}

// A secret prompt (a login's token) never shows what is typed or pasted, and stays on one line.
func TestTextInputMasksASecret(t *testing.T) {
	p := NewTextInput(testRenderer(), "Paste your token", func(text string) tea.Msg { return text }, backMsg{})
	p.SetPlaceholder("sk-…")
	p.SetSecret(true)
	mustContain(t, view(p, 60, 10), "Paste your token", "sk-…", "enter submit · esc back")
	msgs := append(typing("s3cr"), keyOf(tea.KeyCtrlJ), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ét!"), Paste: true})
	sendNone(t, p, msgs...)
	v := view(p, 60, 10)
	mustContain(t, v, "•••••••▏")
	for _, leak := range []string{"s3cr", "ét", "sk-…", "new line"} {
		if strings.Contains(v, leak) {
			t.Fatalf("the view shows %q:\n%s", leak, v)
		}
	}
	if got := sendOne(t, p, keyOf(tea.KeyEnter)); got != "s3crét!" {
		t.Fatalf("Enter = %q", got)
	}
}
