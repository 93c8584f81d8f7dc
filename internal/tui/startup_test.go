package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
)

// The startup question (the project trust prompt) takes Up/Down, k/j and Enter; Escape and Ctrl+C
// cancel; the question is shown with the cursor's option marked.
func TestStartupSelect(t *testing.T) {
	options := []string{"Trust", "Trust parent folder (/w)", "Trust (this session only)", "Do not trust", "Do not trust (this session only)"}
	down, up := tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyUp}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	for _, tc := range []struct {
		name   string
		keys   []tea.KeyMsg
		want   int
		marked string
	}{
		{"enter", nil, 0, "→ Trust"},
		{"down three times", []tea.KeyMsg{down, down, down}, 3, "→ Do not trust"},
		{"j j k", []tea.KeyMsg{runes("j"), runes("j"), runes("k")}, 1, "→ Trust parent folder (/w)"},
		{"jjk at once", []tea.KeyMsg{runes("jjk")}, 1, "→ Trust parent folder (/w)"},
		{"up at the top", []tea.KeyMsg{up, up}, 0, "→ Trust"},
		{"past the end", []tea.KeyMsg{runes("jjjjjjjj")}, 4, "→ Do not trust (this session only)"},
		{"escape", []tea.KeyMsg{down, {Type: tea.KeyEsc}}, -1, ""},
		{"ctrl+c", []tea.KeyMsg{{Type: tea.KeyCtrlC}}, -1, ""},
	} {
		m := newStartupSelect("dark", "Trust project folder?\n/w/proj\n\nThis allows pi to load .pi settings and resources.", options)
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 20))
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains(b, []byte("Trust project folder?")) && bytes.Contains(b, []byte("/w/proj"))
		}, teatest.WithDuration(5*time.Second))
		for _, k := range tc.keys {
			tm.Send(k)
		}
		if tc.marked != "" {
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		}
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		if m.chosen != tc.want {
			t.Errorf("%s: chose %d, want %d", tc.name, m.chosen, tc.want)
		}

		// The same keys on a fresh model: the view marks the option under the cursor.
		v := newStartupSelect("dark", "Q", options)
		for _, k := range tc.keys {
			v.Update(k)
		}
		if view := ansi.Strip(v.View()); tc.marked != "" && !strings.Contains(view, tc.marked+"\n") {
			t.Errorf("%s: view %q lacks %q", tc.name, view, tc.marked)
		}
	}
}

// The startup input (an extension's ctx.ui.input while project trust is decided) shows the title
// and the placeholder; Enter returns what was typed, Escape cancels.
func TestStartupInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []tea.KeyMsg
		want    string
		entered bool
	}{
		{"typed", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("reviewed")}, {Type: tea.KeyEnter}}, "reviewed", true},
		{"empty", []tea.KeyMsg{{Type: tea.KeyEnter}}, "", true},
		{"escape", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("x")}, {Type: tea.KeyEsc}}, "x", false},
	} {
		m := newStartupInput("dark", "Project trust note", "Optional note")
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 20))
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains(b, []byte("Project trust note")) && bytes.Contains(b, []byte("Optional note"))
		}, teatest.WithDuration(5*time.Second))
		for _, k := range tc.keys {
			tm.Send(k)
		}
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		if got := m.field.Value(); got != tc.want || m.entered != tc.entered {
			t.Errorf("%s: %q entered %v, want %q %v", tc.name, got, m.entered, tc.want, tc.entered)
		}
	}
}
