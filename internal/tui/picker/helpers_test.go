package picker

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/tui/render"
)

// testRenderer draws without colours.
func testRenderer() *render.Renderer { return render.New(render.Options{}) }

// send passes msgs to p in order and returns the messages its commands carried.
func send(t *testing.T, p Picker, msgs ...tea.Msg) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	for _, msg := range msgs {
		next, cmd := p.Update(msg)
		if next != p {
			t.Fatalf("Update returned another picker: %T", next)
		}
		if cmd != nil {
			out = append(out, cmd())
		}
	}
	return out
}

// sendOne passes msgs and wants exactly one message back, from the last of them.
func sendOne(t *testing.T, p Picker, msgs ...tea.Msg) tea.Msg {
	t.Helper()
	got := send(t, p, msgs...)
	if len(got) != 1 {
		t.Fatalf("messages = %#v, want one", got)
	}
	return got[0]
}

func sendNone(t *testing.T, p Picker, msgs ...tea.Msg) {
	t.Helper()
	if got := send(t, p, msgs...); len(got) != 0 {
		t.Fatalf("unexpected messages %#v", got)
	}
}

// view is what p shows, escape sequences removed.
func view(p Picker, width, rows int) string {
	lines := p.View(width, rows)
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(lines, "\n")
}

func keyRunes(s string) tea.KeyMsg   { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func keyOf(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// typing is one key per character of s.
func typing(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		if r == ' ' {
			out = append(out, keyOf(tea.KeySpace))
			continue
		}
		out = append(out, keyRunes(string(r)))
	}
	return out
}

func mustContain(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("%q missing in:\n%s", p, s)
		}
	}
}
