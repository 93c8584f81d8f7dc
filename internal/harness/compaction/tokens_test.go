package compaction

import (
	"encoding/json"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func TestContextTokens(t *testing.T) {
	if got := usage(1000, 500, 200, 100).ContextTokens(); got != 1800 {
		t.Errorf("got %d, want 1800", got)
	}
	if got := usage(0, 0, 0, 0).ContextTokens(); got != 0 {
		t.Errorf("zeros: got %d", got)
	}
	u := usage(1000, 500, 200, 100)
	u.TotalTokens = 0
	if got := u.ContextTokens(); got != 1800 {
		t.Errorf("without totalTokens: got %d, want the sum 1800", got)
	}
	u.TotalTokens = 5000
	if got := u.ContextTokens(); got != 5000 {
		t.Errorf("totalTokens wins: got %d", got)
	}
}

// lastAssistantUsage is the usage of the newest completed assistant message among entries (pi's
// getLastAssistantUsage); ok is false when there is none. It
// checks assistantUsage, which EstimateContextTokens reads.
func lastAssistantUsage(entries []*session.Entry) (u provider.Usage, ok bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type != session.TypeMessage || e.Role != provider.RoleAssistant {
			continue
		}
		if u, ok := assistantUsage(entryMessage(e)); ok {
			return u, true
		}
	}
	return provider.Usage{}, false
}

func TestLastAssistantUsage(t *testing.T) {
	b := newBranch(t)
	b.user("Hello")
	b.assistant("Hi", usage(100, 50, 0, 0))
	b.user("How are you?")
	b.assistant("Good", usage(200, 100, 0, 0))
	if u, ok := lastAssistantUsage(b.entries()); !ok || u.Input != 200 {
		t.Errorf("got %+v %v, want input 200", u, ok)
	}

	b = newBranch(t)
	b.user("Hello")
	b.assistant("Hi", usage(100, 50, 0, 0))
	b.user("How are you?")
	aborted := assistantMsg(usage(300, 150, 0, 0), provider.TextContent("Aborted"))
	aborted.StopReason = provider.StopReasonAborted
	b.add(aborted)
	failed := assistantMsg(usage(400, 150, 0, 0))
	failed.StopReason = provider.StopReasonError
	b.add(failed)
	if u, ok := lastAssistantUsage(b.entries()); !ok || u.Input != 100 {
		t.Errorf("aborted and failed messages are skipped: got %+v %v", u, ok)
	}

	b = newBranch(t)
	b.user("Hello")
	if _, ok := lastAssistantUsage(b.entries()); ok {
		t.Error("no assistant message: want none")
	}
}

func TestShouldCompact(t *testing.T) {
	s := Settings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 20000}
	if !ShouldCompact(95000, 100000, s) {
		t.Error("95000 of 100000 with 10000 reserved should compact")
	}
	if ShouldCompact(89000, 100000, s) {
		t.Error("89000 should not")
	}
	if ShouldCompact(90000, 100000, s) {
		t.Error("exactly at the threshold should not (strictly greater)")
	}
	s.Enabled = false
	if ShouldCompact(95000, 100000, s) {
		t.Error("disabled never compacts")
	}
	if d := DefaultSettings(); d != (Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}) {
		t.Errorf("defaults %+v", d)
	}
}

func TestEstimateTokensPerRole(t *testing.T) {
	exit := 1
	img := provider.ImageContent("AAAA", "image/png")
	cases := []struct {
		name string
		msg  provider.Message
		want int
	}{
		{"user 4 chars", provider.NewUserMessage("abcd"), 1},
		{"user 5 chars rounds up", provider.NewUserMessage("abcde"), 2},
		{"user images count (pi 1.6)", provider.NewUserMessage("abcd", img), 1201},
		{"user counts UTF-16 units", provider.NewUserMessage("é😀"), 1}, // 3 units
		{"user string content", &provider.UserMessage{Content: []provider.Content{provider.TextContent("12345678")}, ContentIsString: true}, 2},
		{"assistant text+thinking+call", assistantMsg(provider.Usage{},
			provider.TextContent("abcd"),
			provider.Content{Type: provider.ContentThinking, Thinking: "efgh"},
			provider.ToolCallContent("c1", "read", json.RawMessage(`{"path": "a.txt"}`))), // 4+4+4+16
			7},
		{"tool result with an image", &provider.ToolResultMessage{Content: []provider.Content{provider.TextContent("abcd"), img}}, 1201},
		{"custom string", &provider.CustomMessage{Content: []provider.Content{provider.TextContent("abcdefghi")}, ContentIsString: true}, 3},
		{"custom with image", &provider.CustomMessage{Content: []provider.Content{img}}, 1200},
		{"bash", &provider.BashExecutionMessage{Command: "ls", Output: "a\nb", ExitCode: &exit}, 2},
		{"branch summary", &provider.BranchSummaryMessage{Summary: "abcdefgh"}, 2},
		{"compaction summary", &provider.CompactionSummaryMessage{Summary: "abcdefghi"}, 3},
		{"unknown role", &provider.OpaqueMessage{RoleName: "mystery", Raw: json.RawMessage(`{"role":"mystery","text":"abcdefgh"}`)}, 0},
		{"nil", nil, 0},
	}
	for _, c := range cases {
		if got := EstimateTokens(c.msg); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

func TestEstimateContextTokens(t *testing.T) {
	u1 := provider.NewUserMessage(words(10)) // 10 tokens
	a1 := assistantMsg(usage(500, 100, 0, 0), provider.TextContent("x"))
	u2 := provider.NewUserMessage(words(7))
	aborted := assistantMsg(usage(9000, 0, 0, 0), provider.TextContent("abcdefgh"))
	aborted.StopReason = provider.StopReasonAborted

	est := EstimateContextTokens([]provider.Message{u1, a1, u2, aborted})
	if est.LastUsageIndex != 1 || est.UsageTokens != 600 || est.TrailingTokens != 9 || est.Tokens != 609 {
		t.Errorf("got %+v, want usage 600 at 1 plus 7+2 trailing", est)
	}
	est = EstimateContextTokens([]provider.Message{u1, u2})
	if est.LastUsageIndex != -1 || est.UsageTokens != 0 || est.Tokens != 17 || est.TrailingTokens != 17 {
		t.Errorf("without usage: got %+v", est)
	}
	if est := EstimateContextTokens(nil); est.Tokens != 0 || est.LastUsageIndex != -1 {
		t.Errorf("empty: got %+v", est)
	}
}

// A usage says how big the context was only when the server reported one (pi 1.6): an all-zero usage
// (a server that sends none) made pi 0.73.1 count the context from the following messages alone.
func TestEstimateContextTokensSkipsZeroUsage(t *testing.T) {
	u1 := provider.NewUserMessage(words(3000))
	silent := assistantMsg(provider.Usage{}, provider.TextContent(words(1000)))
	u2 := provider.NewUserMessage(words(10))
	est := EstimateContextTokens([]provider.Message{u1, silent, u2})
	if est.LastUsageIndex != -1 || est.Tokens != 3000+1000+10 {
		t.Errorf("got %+v, want the estimate of every message", est)
	}
}

// A compaction summary placed before the answers it kept makes their usage stale: it describes the
// longer context before the compaction (pi 1.6's prefix rule).
func TestEstimateContextTokensIgnoresUsageOlderThanItsPrefix(t *testing.T) {
	kept := assistantMsg(usage(90000, 10, 0, 0), provider.TextContent(words(20)))
	kept.Timestamp = 1000
	summary := &provider.CompactionSummaryMessage{Summary: words(300), Timestamp: 2000}
	u := &provider.UserMessage{Content: []provider.Content{provider.TextContent(words(10))}, Timestamp: 3000}
	est := EstimateContextTokens([]provider.Message{summary, kept, u})
	if est.LastUsageIndex != -1 || est.Tokens != 300+20+10 {
		t.Errorf("got %+v, want the estimate of the messages", est)
	}
	fresh := assistantMsg(usage(400, 10, 0, 0), provider.TextContent("ok"))
	fresh.Timestamp = 4000
	if est := EstimateContextTokens([]provider.Message{summary, kept, u, fresh}); est.LastUsageIndex != 3 || est.Tokens != 410 {
		t.Errorf("an answer after the compaction counts: %+v", est)
	}
}

// Without a usage the system prompt and the tools are estimated too; a usage counts them already.
func TestEstimateRequestTokens(t *testing.T) {
	tools := []provider.ToolDefinition{{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	overhead := OverheadTokens("You are a helpful assistant.", tools)
	toolsJSON, _ := json.Marshal(tools)
	if want := (len("You are a helpful assistant.") + len(toolsJSON) + 3) / 4; overhead != want {
		t.Errorf("overhead %d, want %d", overhead, want)
	}
	msgs := []provider.Message{provider.NewUserMessage(words(100))}
	if est := EstimateRequestTokens(msgs, overhead); est.Tokens != 100+overhead || est.OverheadTokens != overhead {
		t.Errorf("without usage: %+v", est)
	}
	msgs = append(msgs, assistantMsg(usage(900, 10, 0, 0), provider.TextContent("x")))
	if est := EstimateRequestTokens(msgs, overhead); est.Tokens != 910 || est.OverheadTokens != 0 {
		t.Errorf("with usage: %+v", est)
	}
}

func TestContextUsage(t *testing.T) {
	b := newBranch(t)
	b.user("one")
	b.assistant("a", usage(1000, 24, 0, 0))
	msgs := []provider.Message{provider.NewUserMessage("one"), assistantMsg(usage(1000, 24, 0, 0)), provider.NewUserMessage(words(100))}

	u, ok := ContextUsageOf(b.entries(), msgs, 10000, 0)
	if !ok || !u.Known || u.Tokens != 1124 || u.ContextWindow != 10000 || u.Percent != 11.24 {
		t.Errorf("no compaction: got %+v %v", u, ok)
	}
	if data, _ := json.Marshal(u); string(data) != `{"tokens":1124,"contextWindow":10000,"percent":11.24}` {
		t.Errorf("JSON %s", data)
	}
	if _, ok := ContextUsageOf(b.entries(), msgs, 0, 0); ok {
		t.Error("unknown window: want no usage")
	}
	if u, _ := ContextUsageOf(b.entries(), msgs[2:], 10000, 700); u.Tokens != 100+700 {
		t.Errorf("without usage the overhead counts: %+v", u)
	}

	kept := b.user("two")
	b.compaction("sum", kept, nil)
	u, ok = ContextUsageOf(b.entries(), msgs, 10000, 0)
	if !ok || u.Known {
		t.Errorf("right after a compaction the size is unknown: %+v", u)
	}
	if data, _ := json.Marshal(u); string(data) != `{"tokens":null,"contextWindow":10000,"percent":null}` {
		t.Errorf("JSON %s", data)
	}
	failed := assistantMsg(usage(50, 0, 0, 0))
	failed.StopReason = provider.StopReasonError
	b.add(failed)
	if u, _ = ContextUsageOf(b.entries(), msgs, 10000, 0); u.Known {
		t.Error("a failed answer after the compaction reports nothing")
	}
	b.assistant("zero", usage(0, 0, 0, 0))
	if u, _ = ContextUsageOf(b.entries(), msgs, 10000, 0); u.Known {
		t.Error("a zero usage after the compaction reports nothing")
	}
	b.assistant("b", usage(2000, 10, 0, 0))
	if u, _ = ContextUsageOf(b.entries(), msgs, 10000, 0); !u.Known || u.Tokens != 1124 {
		t.Errorf("an answer after the compaction makes it known again: %+v", u)
	}
}

func TestLatestCompaction(t *testing.T) {
	b := newBranch(t)
	u := b.user("x")
	if LatestCompaction(b.entries()) != nil {
		t.Error("none expected")
	}
	first := b.compaction("one", u, nil)
	b.user("y")
	second := b.compaction("two", u, nil)
	b.user("z")
	if c := LatestCompaction(b.entries()); c == nil || c.ID != second || c.ID == first {
		t.Errorf("got %+v, want %s", c, second)
	}
}
