package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// branchedStore is a session with a fork after the first answer:
//
//	first -> one -> second -> (bash call) -> result -> two
//	             \-> other -> other answer
func branchedStore(t *testing.T) (*session.Manager, map[string]string) {
	t.Helper()
	store := session.InMemory(t.TempDir())
	ids := map[string]string{}
	add := func(name string, msg provider.Message) {
		t.Helper()
		id, err := store.AppendMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	user := func(s string) provider.Message {
		return &provider.UserMessage{Content: []provider.Content{provider.TextContent(s)}, Timestamp: time.Now().UnixMilli()}
	}
	answer := func(s string) provider.Message {
		return &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(s)}, StopReason: provider.StopReasonStop,
			Timestamp: time.Now().UnixMilli()}
	}
	add("first", user("first question"))
	add("one", answer("answer one"))
	add("second", user("second question"))
	add("call", &provider.AssistantMessage{Content: []provider.Content{
		provider.ToolCallContent("call_1", "bash", json.RawMessage(`{"command":"ls -la /tmp"}`))}, StopReason: provider.StopReasonToolUse})
	add("result", &provider.ToolResultMessage{ToolCallID: "call_1", ToolName: "bash", Content: []provider.Content{provider.TextContent("a\nb")}})
	add("two", answer("answer two"))
	if err := store.Branch(ids["one"]); err != nil {
		t.Fatal(err)
	}
	add("other", user("other question"))
	add("otherAnswer", answer("other answer"))
	return store, ids
}

func TestTreeFiltersFoldsAndLabels(t *testing.T) {
	store, ids := branchedStore(t)
	sess := newTestSession(t, newScript(), store)
	u := startUI(t, sess, Options{})
	u.submit("/tree")
	u.waitScreen("the tree", contains("Session Tree", "├⊟ • user: other question", "└⊟ user: second question",
		"[bash: ls -la /tmp]", "assistant: other answer ← active"))

	// Ctrl+U: user messages only; Ctrl+U again: back to the default.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.waitScreen("user only", func(s string) bool {
		return strings.Contains(s, "[user]") && strings.Contains(s, "user: second question") && !strings.Contains(s, "assistant: answer one")
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.waitScreen("the default again", func(s string) bool {
		return strings.Contains(s, "assistant: answer one") && !strings.Contains(s, "[user]")
	})

	// Ctrl+T: no tool results.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlT})
	u.waitScreen("no tools", func(s string) bool { return strings.Contains(s, "[no-tools]") && !strings.Contains(s, "[bash:") })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlD})
	u.waitScreen("default", contains("[bash: ls -la /tmp]"))

	// Fold the second branch. The cursor followed the filters to "other question" (the nearest entry
	// the user-only view showed): two rows down is "second question".
	u.key(tea.KeyDown)
	u.key(tea.KeyDown)
	u.waitScreen("the cursor on the second branch", contains("› └⊟ user: second question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlLeft})
	u.waitScreen("folded", func(s string) bool {
		return strings.Contains(s, "└⊞ user: second question") && !strings.Contains(s, "assistant: answer two")
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlRight})
	u.waitScreen("unfolded", contains("└⊟ user: second question", "answer two"))

	// Shift+L labels the entry under the cursor (a label entry in the session).
	u.typeText("L")
	u.waitScreen("the label field", contains("Label (empty to remove):"))
	u.typeText("checkpoint")
	u.key(tea.KeyEnter)
	u.waitScreen("the label", contains("[checkpoint] user: second question"))
	if got := store.Label(ids["second"]); got != "checkpoint" {
		t.Fatalf("label in the session = %q", got)
	}
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlL})
	u.waitScreen("labelled only", func(s string) bool {
		return strings.Contains(s, "[labeled]") && strings.Contains(s, "[checkpoint]") && !strings.Contains(s, "assistant: answer one")
	})
	u.key(tea.KeyEscape)
	u.waitScreen("the editor", func(s string) bool { return !strings.Contains(s, "Session Tree") })
}

// A search that hides entries keeps the tree lines of what is left; Escape clears it first.
func TestTreeSearchAttachesToVisibleAncestors(t *testing.T) {
	store, _ := branchedStore(t)
	u := startUI(t, newTestSession(t, newScript(), store), Options{})
	u.submit("/tree")
	u.waitScreen("the tree", contains("Session Tree"))
	u.typeText("question")
	u.waitScreen("the search", func(s string) bool {
		return strings.Contains(s, "Search: question") && strings.Contains(s, "user: other question") &&
			!strings.Contains(s, "assistant: answer one")
	})
	u.key(tea.KeyEscape)
	u.waitScreen("the search cleared", contains("assistant: answer one", "Session Tree"))
	u.key(tea.KeyEscape)
	u.waitScreen("closed", func(s string) bool { return !strings.Contains(s, "Session Tree") })
}
