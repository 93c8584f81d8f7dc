package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func systemLine(id, parent string, sections map[string]string, tools ...string) string {
	m := provider.NewSystemMessage(1)
	for _, name := range []string{"preamble", "tools", "cwd"} {
		if text, ok := sections[name]; ok {
			m.Sections = append(m.Sections, provider.PromptSection{Name: name, Text: text})
		}
	}
	for _, t := range tools {
		m.ToolsAdded = append(m.ToolsAdded, provider.ToolDefinition{Name: t, Description: t, Parameters: json.RawMessage(`{}`)})
	}
	data, _ := m.MarshalJSON()
	return `{"type":"message","id":"` + id + `","parentId":` + parentJSON(parent) + `,"timestamp":"2025-01-01T00:00:00Z","message":` + string(data) + `}`
}

func roleNames(ctx Context) []string {
	var out []string
	for _, m := range ctx.Messages {
		out = append(out, m.Role())
	}
	return out
}

// pi 1.6.0's RPC session (testdata/pi16/rpc): its first system message, then a compaction whose
// checkpoint leads the rebuilt context.
func TestPi16CompactionCheckpointLeadsTheContext(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/pi16/rpc/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{SessionDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx), []string{"system", "compactionSummary", "bashExecution", "user", "assistant"}, "roles")
	cp := ctx.Messages[0].(*provider.SystemMessage)
	if !cp.TimestampLast || len(cp.Sections) != 5 || len(cp.ToolsAdded) != 4 {
		t.Errorf("checkpoint %+v", cp)
	}
	// The first system message of the file declared the same prompt.
	var first provider.Message
	for _, e := range s.Entries() {
		if e.Type == TypeMessage && e.Role == provider.RoleSystem {
			if first, err = e.Message(); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if provider.SystemMessageText(cp) != provider.SystemMessageText(first.(*provider.SystemMessage)) {
		t.Error("the checkpoint must replay to the prompt the session declared")
	}
	checkAppendKeepsBytes(t, s, path, orig)
}

func TestCompactionWritesTheReplayedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	s := Create(dir, filepath.Join(dir, "sessions"))
	ok := mustAppend(t)
	first := provider.NewSystemMessage(10)
	first.Sections = []provider.PromptSection{{Name: "preamble", Text: "P"}, {Name: "cwd", Text: "C"}}
	first.ToolsAdded = []provider.ToolDefinition{{Name: "read", Description: "r", Parameters: json.RawMessage(`{"type":"object"}`)}}
	ok(s.AppendMessage(first))
	u1 := ok(s.AppendMessage(userMsg("one")))
	ok(s.AppendMessage(assistantMsg("a1")))
	patch := provider.NewSystemMessage(20)
	patch.Sections = []provider.PromptSection{{Name: "cwd", Text: "D"}}
	patch.ToolsRemoved = []string{"read"}
	ok(s.AppendMessage(patch))
	ok(s.AppendMessage(userMsg("two")))
	ok(s.AppendMessage(assistantMsg("a2")))
	// Keep from the first user message: both system messages are in the kept range.
	cID := ok(s.AppendCompaction("sum", u1, 100, nil, false, nil))
	after := provider.NewSystemMessage(30)
	after.Sections = []provider.PromptSection{{Name: "skills", Text: "S"}}
	ok(s.AppendMessage(after))
	ok(s.AppendMessage(userMsg("three")))

	c := s.Entry(cID)
	line, _ := c.Raw()
	wantTail := `,"fromHook":false,"systemMessage":{"role":"system","content":"","sections":{"preamble":"P","cwd":"D"},"timestamp":` +
		jsonInt(c.Time()) + `}}`
	if !strings.HasSuffix(string(line), wantTail) {
		t.Errorf("compaction line\n%s\nwant it to end with\n%s", line, wantTail)
	}
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	// The kept system messages give way to the checkpoint; the one after the compaction stays.
	eqSlice(t, roleNames(ctx), []string{"system", "compactionSummary", "user", "assistant", "user", "assistant", "system", "user"}, "roles")
	if got := provider.CurrentSystemPrompt(ctx.Messages); got != "P\n\nD\n\nS" {
		t.Errorf("replayed prompt %q", got)
	}
	if tools := provider.CurrentTools(ctx.Messages); tools != nil {
		t.Errorf("read was removed before the compaction: %+v", tools)
	}

	// Reopened, the file rebuilds the same context; a second compaction replays the first's checkpoint.
	path := s.SessionFile()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, OpenOptions{SessionDir: filepath.Join(dir, "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx2, err := s2.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx2), roleNames(ctx), "reopened roles")
	last := s2.Entries()[len(s2.Entries())-1].ID
	c2 := mustAppend(t)(s2.AppendCompaction("sum2", last, 50, nil, false, nil))
	ctx3, err := s2.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx3), []string{"system", "compactionSummary", "user"}, "after the second compaction")
	if got := provider.CurrentSystemPrompt(ctx3.Messages); got != "P\n\nD\n\nS" {
		t.Errorf("second checkpoint replays to %q", got)
	}
	if s2.Entry(c2).SystemMessage == nil {
		t.Error("second checkpoint missing")
	}
}

func TestCompactionWithoutSystemMessagesHasNoCheckpoint(t *testing.T) {
	ctx := build(t, "",
		msgLine("1", "", "user", "one"), msgLine("2", "1", "assistant", "a"),
		compactionLine("3", "2", "sum", "2"), msgLine("4", "3", "user", "two"))
	eqSlice(t, roleNames(ctx), []string{"compactionSummary", "assistant", "user"}, "old compaction")

	// A checkpoint that is no system message is reported and left out.
	bad := strings.TrimSuffix(compactionLine("3", "2", "sum", "2"), "}") + `,"systemMessage":{"role":"user","content":"x","timestamp":1}}`
	es := entriesFromLines(t, systemLine("0", "", map[string]string{"preamble": "P"}, "read"),
		msgLine("1", "0", "user", "one"), msgLine("2", "1", "assistant", "a"), bad)
	ctx, warns, err := buildContext(es)
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx), []string{"compactionSummary", "assistant"}, "bad checkpoint")
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "not a system message") {
		t.Errorf("warnings %+v", warns)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
