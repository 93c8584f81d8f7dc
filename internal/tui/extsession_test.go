package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

// An extension's session changes are shown as the built-in commands show them, in order with the
// session's events: a message the extension sends right after a switch is drawn once, after the
// switched-to transcript; a model switch reaches the footer at once.
func TestExtensionSessionChangesAreShownAsBuiltInCommands(t *testing.T) {
	ext := NewExtensionUI()
	sess := newTestSession(t, newScript(textTurn("first answer")), nil)
	u := startUI(t, sess, Options{ExtensionUI: ext})
	u.typeText("hello one")
	u.key(tea.KeyEnter)
	u.waitSettled()
	first := sess.Store().SessionFile()
	u.typeText("/name alpha")
	u.key(tea.KeyEnter)
	u.waitScreen("the session's name", contains("Session name set: alpha"))
	title := func() string {
		for _, o := range slices.Backward(u.vt.OSC()) {
			if strings.HasPrefix(o, "0;") {
				return o
			}
		}
		return ""
	}

	// ctx.newSession(): /new's rule and notice; the title no longer names the old session.
	if err := sess.NewSession(""); err != nil {
		t.Fatal(err)
	}
	ext.SessionChanged(SessionChange{Kind: SessionStarted, Messages: sess.Messages()})
	u.waitScreen("the new session", contains("✓ New session started"))
	if got := title(); got == "" || strings.Contains(got, "alpha") {
		t.Errorf("the title after the new session: %q", got)
	}

	// ctx.switchSession(first), then a message sent before the TUI caught up: the first session's
	// transcript under a rule, "Resumed session", then the message, once.
	if err := sess.SwitchSession(first); err != nil {
		t.Fatal(err)
	}
	ext.SessionChanged(SessionChange{Kind: SessionResumed, Messages: sess.Messages()})
	note := &provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("note after the switch")}, Display: true}
	if _, err := sess.SendCustomMessage(context.Background(), note, "", nil); err != nil {
		t.Fatal(err)
	}
	all := u.waitAll("the resumed session and the note", contains("Resumed session", "note after the switch"))
	if got := title(); !strings.Contains(got, "alpha") {
		t.Errorf("the title after resuming the named session: %q", got)
	}
	if n := strings.Count(all, "note after the switch"); n != 1 {
		t.Errorf("the note is drawn %d times:\n%s", n, all)
	}
	if strings.LastIndex(all, "first answer") > strings.LastIndex(all, "Resumed session") ||
		strings.LastIndex(all, "Resumed session") > strings.Index(all, "note after the switch") ||
		strings.Count(all, "first answer") != 2 {
		t.Errorf("transcript, notice and note out of order:\n%s", all)
	}

	// pi.setModel(): the footer names the new model.
	other := *testModel
	other.ID = "other-model"
	if err := sess.SetModel(&other); err != nil {
		t.Fatal(err)
	}
	ext.SessionChanged(SessionChange{Kind: SessionSettingsChanged})
	u.waitScreen("the footer's new model", contains("other-model"))
}
