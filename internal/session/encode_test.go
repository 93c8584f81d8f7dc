package session

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// Every entry type is written with pi's key order and omissions (JSON.stringify of pi's object
// literals).
func TestEntryLinesArePiExact(t *testing.T) {
	dir := t.TempDir()
	s := Create("/home/me/proj", dir)
	defer s.Close()
	s.now = func() time.Time { return time.Date(2025, 5, 1, 10, 0, 0, 7_000_000, time.UTC) }
	s.NewSession(NewSessionOptions{ID: "sess-1", ParentSession: "/p/old.jsonl"})
	ok := mustAppend(t)
	ok(s.AppendModelChange("openai", "gpt-4o"))
	ok(s.AppendThinkingLevelChange("off"))
	u := &provider.UserMessage{Content: []provider.Content{provider.TextContent("hi \u2028 <b>&</b>")}, Timestamp: 1746093600007}
	ok(s.AppendMessage(u))
	ok(s.AppendMessage(&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("yo")}, API: "openai-completions",
		Provider: "openai", Model: "gpt-4o", StopReason: "stop", Timestamp: 1746093600008}))
	first := s.Entries()[0].ID
	ok(s.AppendCompaction("sum", first, 1234, map[string][]string{"readFiles": {"a"}, "modifiedFiles": {}}, false, nil))
	ok(s.AppendCompaction("sum2", first, 1, nil, true, nil))
	ok(s.BranchWithSummary(first, "bs", nil, false, nil))
	ok(s.AppendCustomEntry("ext", map[string]int{"n": 1}))
	ok(s.AppendCustomEntry("ext", nil))
	ok(s.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("c")}, ContentIsString: true, Display: true}))
	ok(s.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("c")}, Display: false, Details: map[string]bool{"x": true}}))
	ok(s.AppendLabelChange(first, "mark"))
	ok(s.AppendLabelChange(first, ""))
	ok(s.AppendSessionInfo("  My session  "))

	want := []string{
		`{"type":"session","version":3,"id":"sess-1","timestamp":"2025-05-01T10:00:00.007Z","cwd":"/home/me/proj","parentSession":"/p/old.jsonl"}`,
		`{"type":"model_change","id":"ID","parentId":null,"timestamp":"2025-05-01T10:00:00.007Z","provider":"openai","modelId":"gpt-4o"}`,
		`{"type":"thinking_level_change","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","thinkingLevel":"off"}`,
		`{"type":"message","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","message":{"role":"user","content":[{"type":"text","text":"hi ` + "\u2028" + ` <b>&</b>"}],"timestamp":1746093600007}}`,
		`{"type":"message","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"openai-completions","provider":"openai","model":"gpt-4o","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1746093600008}}`,
		`{"type":"compaction","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","summary":"sum","firstKeptEntryId":"ID","tokensBefore":1234,"details":{"modifiedFiles":[],"readFiles":["a"]},"fromHook":false}`,
		`{"type":"compaction","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","summary":"sum2","firstKeptEntryId":"ID","tokensBefore":1,"fromHook":true}`,
		`{"type":"branch_summary","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","fromId":"ID","summary":"bs","fromHook":false}`,
		`{"type":"custom","customType":"ext","data":{"n":1},"id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z"}`,
		`{"type":"custom","customType":"ext","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z"}`,
		`{"type":"custom_message","customType":"note","content":"c","display":true,"id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z"}`,
		`{"type":"custom_message","customType":"note","content":[{"type":"text","text":"c"}],"display":false,"details":{"x":true},"id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z"}`,
		`{"type":"label","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","targetId":"ID","label":"mark"}`,
		`{"type":"label","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","targetId":"ID"}`,
		`{"type":"session_info","id":"ID","parentId":"ID","timestamp":"2025-05-01T10:00:00.007Z","name":"My session"}`,
	}
	idRe := regexp.MustCompile(`"(id|parentId|firstKeptEntryId|fromId|targetId)":"[0-9a-f]{8}"`)
	got := readLines(t, s.SessionFile())
	eq(t, len(got), len(want), "lines")
	for i := range got {
		g := idRe.ReplaceAllString(got[i], `"$1":"ID"`)
		if g != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, want[i])
		}
	}
	if !strings.HasSuffix(s.SessionFile(), "/2025-05-01T10-00-00-007Z_sess-1.jsonl") {
		t.Fatalf("file name %s", s.SessionFile())
	}
}
