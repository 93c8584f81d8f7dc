package session

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// userMsg and assistantMsg mirror pi's test utilities.
func userMsg(text string) *provider.UserMessage {
	return &provider.UserMessage{Content: []provider.Content{provider.TextContent(text)}, ContentIsString: true, Timestamp: provider.Now()}
}

func assistantMsg(text string) *provider.AssistantMessage {
	return &provider.AssistantMessage{
		Content: []provider.Content{provider.TextContent(text)},
		API:     "anthropic-messages", Provider: "anthropic", Model: "test",
		Usage:      provider.Usage{Input: 1, Output: 1, TotalTokens: 2},
		StopReason: provider.StopReasonStop, Timestamp: provider.Now(),
	}
}

func mustAppend(t *testing.T) func(string, error) string {
	t.Helper()
	return func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}

func ids(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func eq[T comparable](t *testing.T, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func eqSlice(t *testing.T, got, want []string, what string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// entriesFromLines parses entry lines (after a v3 header) with the real loader.
func entriesFromLines(t *testing.T, lines ...string) []*Entry {
	t.Helper()
	data := `{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}` + "\n" + strings.Join(lines, "\n") + "\n"
	l, err := load(bytes.NewReader([]byte(data)), int64(len(data)), "test.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.warnings) > 0 {
		t.Fatalf("warnings: %v", l.warnings)
	}
	return l.entries
}

// textOf returns the text of a context message: user/assistant text, or a summary.
func textOf(t *testing.T, m provider.Message) string {
	t.Helper()
	switch x := m.(type) {
	case *provider.UserMessage:
		return provider.TextOf(x.Content, "")
	case *provider.AssistantMessage:
		return provider.TextOf(x.Content, "")
	case *provider.CompactionSummaryMessage:
		return x.Summary
	case *provider.BranchSummaryMessage:
		return x.Summary
	case *provider.CustomMessage:
		return provider.TextOf(x.Content, "")
	}
	t.Fatalf("unexpected message %T", m)
	return ""
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
