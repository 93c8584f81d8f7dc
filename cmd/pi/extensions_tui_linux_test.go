package main

import (
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// In the terminal, an extension's dialog opens as a picker in place of the editor and its
// notification is a line of the transcript; a tool_call gate that asks works the same way.
func TestExtensionDialogsInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	_, pyExt := anyLanguageExtensions(t)
	p := newProject(t)
	pane := startTmuxPi(t, p, append(p.baseArgs(), "-e", pyExt)...)
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "test-model") })
	pane.keys("-l", "/py-confirm ship")
	pane.keys("Enter")
	pane.waitFor("the dialog", func(s string) bool {
		return strings.Contains(s, "Python asks") && strings.Contains(s, "Proceed with ship?") && strings.Contains(s, "Yes")
	})
	pane.keys("Enter") // "Yes" is first
	pane.waitFor("the notification", func(s string) bool { return strings.Contains(s, "py-confirm: yes") })

	pane.keys("-l", "/py-confirm again")
	pane.keys("Enter")
	pane.waitFor("the second dialog", func(s string) bool { return strings.Contains(s, "Proceed with again?") })
	pane.keys("Escape")
	pane.waitFor("the cancelled answer", func(s string) bool { return strings.Contains(s, "py-confirm: no") })

	// The extension's tool_call gate blocks a write to .env; the model sees why.
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "w", Name: "write", Arguments: `{"path":"a.env","content":"x"}`}),
		openaitest.TextReply("test-model", "understood"),
	)
	pane.keys("-l", "write it")
	pane.keys("Enter")
	pane.waitFor("the answer", func(s string) bool {
		return strings.Contains(s, "python-guard: .env files are protected") && strings.Contains(s, "understood")
	})
}
