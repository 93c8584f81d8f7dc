package session

// Port of pi's test/session-manager/build-context.test.ts.

import (
	"fmt"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func parentJSON(parent string) string {
	if parent == "" {
		return "null"
	}
	return fmt.Sprintf("%q", parent)
}

func msgLine(id, parent, role, text string) string {
	base := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00Z","message":`, id, parentJSON(parent))
	if role == "user" {
		return base + fmt.Sprintf(`{"role":"user","content":%q,"timestamp":1}}`, text)
	}
	return base + fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q}],"api":"anthropic-messages","provider":"anthropic","model":"claude-test","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}`, text)
}

func compactionLine(id, parent, summary, firstKept string) string {
	return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00Z","summary":%q,"firstKeptEntryId":%q,"tokensBefore":1000}`, id, parentJSON(parent), summary, firstKept)
}

func branchSummaryLine(id, parent, summary, fromID string) string {
	return fmt.Sprintf(`{"type":"branch_summary","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00Z","summary":%q,"fromId":%q}`, id, parentJSON(parent), summary, fromID)
}

func thinkingLine(id, parent, level string) string {
	return fmt.Sprintf(`{"type":"thinking_level_change","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00Z","thinkingLevel":%q}`, id, parentJSON(parent), level)
}

func modelLine(id, parent, prov, model string) string {
	return fmt.Sprintf(`{"type":"model_change","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00Z","provider":%q,"modelId":%q}`, id, parentJSON(parent), prov, model)
}

func build(t *testing.T, leaf string, lines ...string) Context {
	t.Helper()
	var es []*Entry
	if len(lines) > 0 {
		es = entriesFromLines(t, lines...)
	}
	ctx, err := BuildContext(es, leaf)
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func texts(t *testing.T, ctx Context) []string {
	var out []string
	for _, m := range ctx.Messages {
		out = append(out, textOf(t, m))
	}
	return out
}

func TestBuildContextTrivial(t *testing.T) {
	ctx := build(t, "")
	if len(ctx.Messages) != 0 || ctx.ThinkingLevel != "off" || ctx.Model != nil {
		t.Fatalf("empty context = %+v", ctx)
	}
	ctx = build(t, "", msgLine("1", "", "user", "hello"))
	eq(t, len(ctx.Messages), 1, "messages")
	eq(t, ctx.Messages[0].Role(), "user", "role")

	ctx = build(t, "", msgLine("1", "", "user", "hello"), msgLine("2", "1", "assistant", "hi there"),
		msgLine("3", "2", "user", "how are you"), msgLine("4", "3", "assistant", "great"))
	var roles []string
	for _, m := range ctx.Messages {
		roles = append(roles, m.Role())
	}
	eqSlice(t, roles, []string{"user", "assistant", "user", "assistant"}, "roles")

	ctx = build(t, "", msgLine("1", "", "user", "hello"), thinkingLine("2", "1", "high"), msgLine("3", "2", "assistant", "thinking hard"))
	eq(t, ctx.ThinkingLevel, provider.ThinkingLevel("high"), "thinking level")
	eq(t, len(ctx.Messages), 2, "messages")

	ctx = build(t, "", msgLine("1", "", "user", "hello"), msgLine("2", "1", "assistant", "hi"))
	eq(t, *ctx.Model, ModelRef{"anthropic", "claude-test"}, "model from assistant")

	ctx = build(t, "", msgLine("1", "", "user", "hello"), modelLine("2", "1", "openai", "gpt-4"), msgLine("3", "2", "assistant", "hi"))
	eq(t, *ctx.Model, ModelRef{"anthropic", "claude-test"}, "assistant overrides model change")

	ctx = build(t, "", msgLine("1", "", "user", "hello"), modelLine("2", "1", "openai", "gpt-4"))
	eq(t, *ctx.Model, ModelRef{"openai", "gpt-4"}, "model from model change")
}

func TestBuildContextCompaction(t *testing.T) {
	ctx := build(t, "",
		msgLine("1", "", "user", "first"), msgLine("2", "1", "assistant", "response1"),
		msgLine("3", "2", "user", "second"), msgLine("4", "3", "assistant", "response2"),
		compactionLine("5", "4", "Summary of first two turns", "3"),
		msgLine("6", "5", "user", "third"), msgLine("7", "6", "assistant", "response3"))
	eqSlice(t, texts(t, ctx), []string{"Summary of first two turns", "second", "response2", "third", "response3"}, "kept")
	cs := ctx.Messages[0].(*provider.CompactionSummaryMessage)
	eq(t, cs.TokensBefore, 1000, "tokensBefore")
	eq(t, cs.Timestamp, int64(1735689600000), "summary timestamp")
	eq(t, ctx.Messages[1].(*provider.UserMessage).ContentIsString, true, "string content kept")

	ctx = build(t, "", msgLine("1", "", "user", "first"), msgLine("2", "1", "assistant", "response"),
		compactionLine("3", "2", "Empty summary", "1"), msgLine("4", "3", "user", "second"))
	eqSlice(t, texts(t, ctx), []string{"Empty summary", "first", "response", "second"}, "keep from first")

	ctx = build(t, "", msgLine("1", "", "user", "a"), msgLine("2", "1", "assistant", "b"),
		compactionLine("3", "2", "First summary", "1"), msgLine("4", "3", "user", "c"),
		msgLine("5", "4", "assistant", "d"), compactionLine("6", "5", "Second summary", "4"), msgLine("7", "6", "user", "e"))
	eqSlice(t, texts(t, ctx), []string{"Second summary", "c", "d", "e"}, "latest compaction")

	ctx = build(t, "", msgLine("1", "", "user", "a"), msgLine("2", "1", "assistant", "b"),
		compactionLine("3", "2", "S", "gone"), msgLine("4", "3", "user", "c"))
	eqSlice(t, texts(t, ctx), []string{"S", "c"}, "first kept not on path")
}

func TestBuildContextBranches(t *testing.T) {
	lines := []string{msgLine("1", "", "user", "start"), msgLine("2", "1", "assistant", "response"),
		msgLine("3", "2", "user", "branch A"), msgLine("4", "2", "user", "branch B")}
	eqSlice(t, texts(t, build(t, "3", lines...)), []string{"start", "response", "branch A"}, "branch A")
	eqSlice(t, texts(t, build(t, "4", lines...)), []string{"start", "response", "branch B"}, "branch B")

	ctx := build(t, "5", msgLine("1", "", "user", "start"), msgLine("2", "1", "assistant", "response"),
		msgLine("3", "2", "user", "abandoned path"), branchSummaryLine("4", "2", "Summary of abandoned work", "3"),
		msgLine("5", "4", "user", "new direction"))
	eqSlice(t, texts(t, ctx), []string{"start", "response", "Summary of abandoned work", "new direction"}, "branch summary")
	eq(t, ctx.Messages[2].(*provider.BranchSummaryMessage).FromID, "3", "fromId")

	complexTree := []string{
		msgLine("1", "", "user", "start"), msgLine("2", "1", "assistant", "r1"),
		msgLine("3", "2", "user", "q2"), msgLine("4", "3", "assistant", "r2"),
		compactionLine("5", "4", "Compacted history", "3"),
		msgLine("6", "5", "user", "q3"), msgLine("7", "6", "assistant", "r3"),
		msgLine("8", "3", "user", "wrong path"), msgLine("9", "8", "assistant", "wrong response"),
		branchSummaryLine("10", "3", "Tried wrong approach", "9"), msgLine("11", "10", "user", "better approach"),
	}
	eqSlice(t, texts(t, build(t, "7", complexTree...)), []string{"Compacted history", "q2", "r2", "q3", "r3"}, "main path")
	eqSlice(t, texts(t, build(t, "11", complexTree...)), []string{"start", "r1", "q2", "Tried wrong approach", "better approach"}, "branch path")
}

func TestBuildContextEdgeCases(t *testing.T) {
	lines := []string{msgLine("1", "", "user", "hello"), msgLine("2", "1", "assistant", "hi")}
	eq(t, len(build(t, "nonexistent", lines...).Messages), 2, "unknown leaf uses last entry")
	ctx := build(t, "2", msgLine("1", "", "user", "hello"), msgLine("2", "missing", "assistant", "orphan"))
	eqSlice(t, texts(t, ctx), []string{"orphan"}, "orphan")
}

func TestBuildContextCustomMessagesAndNullLeaf(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	ok(s.AppendMessage(userMsg("hello")))
	ok(s.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "ext", Content: []provider.Content{provider.TextContent("injected")}, ContentIsString: true, Display: true, Details: map[string]any{"k": 1.0}}))
	ok(s.AppendCustomEntry("state", nil))
	ok(s.AppendLabelChange(s.Entries()[0].ID, "mark"))
	ok(s.AppendSessionInfo("  named  "))
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, texts(t, ctx), []string{"hello", "injected"}, "messages")
	cm := ctx.Messages[1].(*provider.CustomMessage)
	eq(t, cm.CustomType, "ext", "custom type")
	eq(t, cm.Display, true, "display")
	eq(t, cm.ContentIsString, true, "string content")
	eq(t, cm.Details.(map[string]any)["k"], any(1.0), "details")
	eq(t, s.SessionName(), "named", "session name")
	s.ResetLeaf()
	ctx, _ = s.BuildContext()
	eq(t, len(ctx.Messages), 0, "null leaf")
	eq(t, ctx.ThinkingLevel, provider.ThinkingOff, "null leaf thinking")
}
