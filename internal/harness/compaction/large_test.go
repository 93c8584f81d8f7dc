package compaction

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// appendTurns appends n coding turns: a request, a call to read or edit a file with its result (about
// 1500 characters), and an answer reporting a growing context. It returns the context size reached.
func appendTurns(t testing.TB, m *session.Manager, n, startTokens int) int {
	t.Helper()
	tokens := startTokens
	add := func(msg provider.Message) {
		if _, err := m.AppendMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	result := strings.Repeat("line of file content\n", 70) // 1470 characters
	for i := range n {
		add(provider.NewUserMessage(fmt.Sprintf("turn %d: please look at file %d and fix the failing test in it, keeping the API as it is", i, i%97)))
		name, path := "read", fmt.Sprintf("src/pkg%d/file%d.go", i%13, i%97)
		if i%4 == 3 {
			name = "edit"
		}
		call := fmt.Sprintf("call_%d", i)
		tokens += 420
		add(assistantMsg(usage(tokens, 60, 0, 0),
			provider.Content{Type: provider.ContentThinking, Thinking: "I should open the file first to see what the test expects."},
			provider.TextContent("Let me look at it."),
			provider.ToolCallContent(call, name, []byte(`{"path":"`+path+`","offset":1,"limit":200}`))))
		add(&provider.ToolResultMessage{ToolCallID: call, ToolName: name, Content: []provider.Content{provider.TextContent(result)}, Timestamp: provider.Now()})
		tokens += 80
		add(assistantMsg(usage(tokens, 50, 0, 0), provider.TextContent(fmt.Sprintf("Fixed turn %d: the comparison was off by one.", i))))
	}
	return tokens
}

func TestLargeBranch(t *testing.T) {
	dir := t.TempDir()
	m := session.Create("/work/proj", dir)
	appendTurns(t, m, 2000, 1000)
	file := m.SessionFile()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopen: messages are decoded from the file on demand.
	m, err := session.Open(file, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	branch := m.Path("")
	if len(branch) != 8000 {
		t.Fatalf("%d entries", len(branch))
	}
	st := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "## Goal\nfix tests", "" }}
	// scriptedStream records requests in arrival order; both parallel ones are checked below.
	s := summarizer(st)
	res, err := Compact(context.Background(), Params{Summarizer: s, Branch: branch, Settings: DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	kept := -1
	for i, e := range branch {
		if e.ID == res.FirstKeptEntryID {
			kept = i
		}
	}
	// The cut falls on a turn's final answer: the turn is split, its start summarised on its own.
	if kept < 0 || branch[kept].Role != provider.RoleAssistant || kept%4 != 3 || len(st.all()) != 2 {
		t.Fatalf("kept from %d (%s) after %d requests", kept, branch[kept].Role, len(st.all()))
	}
	history := st.all()[0]
	if strings.Contains(promptOf(t, history), "## Original Request") {
		history = st.all()[1]
	}
	keptTokens := 0
	for _, e := range branch[kept:] {
		keptTokens += EstimateTokens(entryMessage(e))
	}
	if keptTokens < 19000 || keptTokens > 20600 {
		t.Errorf("kept %d tokens, want about keepRecentTokens", keptTokens)
	}
	prompt := promptOf(t, history)
	if !strings.HasPrefix(prompt, "<conversation>\n[User]: turn 0: please look") || !strings.Contains(prompt, "[Assistant tool calls]: read(path=\"src/pkg0/file0.go\", offset=1, limit=200)") {
		t.Errorf("prompt starts %q", prompt[:200])
	}
	if n := strings.Count(prompt, "[Tool result]: "); n != kept/4 {
		t.Errorf("%d tool results in the history, want %d", n, kept/4)
	}
	if !strings.Contains(res.Summary, "\n\n---\n\n**Turn Context (split turn):**\n\n") {
		t.Error("split-turn summary expected")
	}
	if len(res.Details.ReadFiles)+len(res.Details.ModifiedFiles) != 13*97 || !strings.HasSuffix(res.Summary, "</modified-files>") {
		t.Errorf("details: %d read, %d modified", len(res.Details.ReadFiles), len(res.Details.ModifiedFiles))
	}

	// The compacted session rebuilds to the summary plus the kept turns, and resumes the same.
	if _, err := m.AppendCompaction(res.Summary, res.FirstKeptEntryID, res.TokensBefore, res.Details, false, nil); err != nil {
		t.Fatal(err)
	}
	ctx, err := m.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Messages) != 1+len(branch)-kept || ctx.Messages[0].Role() != provider.RoleCompactionSummary {
		t.Errorf("context of %d messages", len(ctx.Messages))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2, err := session.Open(file, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	ctx2, err := m2.BuildContext()
	if err != nil || len(ctx2.Messages) != len(ctx.Messages) {
		t.Fatalf("resumed context %d messages, %v", len(ctx2.Messages), err)
	}

	// More work, then a second compaction updating the first summary.
	appendTurns(t, m2, 100, 60000)
	st2 := &scriptedStream{}
	res2, err := Compact(context.Background(), Params{Summarizer: summarizer(st2), Branch: m2.Path(""), Settings: DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	p2 := promptOf(t, st2.all()[0])
	if !strings.Contains(p2, "<previous-summary>\n"+res.Summary+"\n</previous-summary>") || !strings.HasPrefix(p2, "<conversation>\n[Assistant]: Fixed turn ") {
		t.Errorf("second prompt (from the first compaction's kept start) starts %q", p2[:100])
	}
	if res2.FirstKeptEntryID == res.FirstKeptEntryID {
		t.Error("the second compaction keeps less")
	}
}
