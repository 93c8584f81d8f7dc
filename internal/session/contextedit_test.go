package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

const projectionDir = "../../testdata/pi16/session-projection"

// pi 1.6.0's own buildSessionContext on a file with context edits (omissions, replacements of a user
// message, a tool result, an assistant message and a custom message, the latest edit per target
// winning), usage entries, a branch summary with usage, a compaction, a retain-none compaction and a
// compaction whose kept range holds an older one: the context of each leaf, message for message.
func TestPi16ContextEditsProjectAsPiDoes(t *testing.T) {
	want := map[string][]json.RawMessage{}
	data, err := os.ReadFile(filepath.Join(projectionDir, "contexts.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 {
		t.Fatalf("fixture has %d leaves", len(want))
	}
	s, _, _ := openProjection(t)
	entries := s.Entries()
	for leaf, msgs := range want {
		ctx, err := BuildContext(entries, leaf)
		if err != nil {
			t.Fatal(err)
		}
		if len(ctx.Messages) != len(msgs) {
			t.Errorf("leaf %s: %d messages %v, pi %d", leaf, len(ctx.Messages), roleNames(ctx), len(msgs))
			continue
		}
		for i, m := range ctx.Messages {
			got, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, msgs[i]) {
				t.Errorf("leaf %s message %d:\n got %s\n pi  %s", leaf, i, got, msgs[i])
			}
		}
	}
}

// The usage pi 1.6.0's get_session_stats counts for that file (assistant messages, usage entries of
// any kind, the compactions' and the branch summary's usage), and the file round-trips byte for byte.
func TestPi16UsageEntriesCountInTotals(t *testing.T) {
	var want struct {
		Tokens struct{ Input, Output, CacheRead, CacheWrite int }
		Cost   float64
	}
	data, err := os.ReadFile(filepath.Join(projectionDir, "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	s, path, orig := openProjection(t)
	u := s.TotalUsage()
	if u.Input != want.Tokens.Input || u.Output != want.Tokens.Output || u.CacheRead != want.Tokens.CacheRead ||
		u.CacheWrite != want.Tokens.CacheWrite || u.Cost.Total != want.Cost {
		t.Errorf("totals %+v, pi %+v", u, want)
	}
	var kinds []string
	for _, e := range s.Entries() {
		if e.Type == TypeUsage {
			kinds = append(kinds, e.Kind+"/"+e.Provider+"/"+e.ModelID+"/"+e.Note)
		}
	}
	eqSlice(t, kinds, []string{"cache_warm/mock/mock-model/", "some_future_kind/other/other-model/from a newer pi"}, "usage entries")
	checkAppendKeepsBytes(t, s, path, orig)
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), string(orig)) {
		t.Error("the original lines changed")
	}
}

// openProjection opens a copy of the projection fixture, which loads without a warning.
func openProjection(t *testing.T) (*Manager, string, []byte) {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(projectionDir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if w := s.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	return s, path, orig
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// AppendContextEdit checks its target as pi 1.6's appendContextEdit does, with pi's error texts, and
// writes pi's line: a string replacement of an assistant message or tool result as one text block.
func TestAppendContextEdit(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	sys := ok(s.AppendMessage(provider.NewSystemMessage(1)))
	u1 := ok(s.AppendMessage(userMsg("one")))
	a1 := ok(s.AppendMessage(assistantMsg("two")))
	tr := ok(s.AppendMessage(&provider.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []provider.Content{provider.TextContent("out")}, Timestamp: 1}))
	cm := ok(s.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("n")}, ContentIsString: true, Display: true}))
	mc := ok(s.AppendModelChange("p", "m"))
	str := func(text string) *Replacement {
		return &Replacement{Content: []provider.Content{provider.TextContent(text)}, IsString: true}
	}
	for _, c := range []struct {
		target, err string
	}{
		{"nope", "Entry nope not found"},
		{sys, "Entry " + sys + " does not contribute editable model content"},
		{mc, "Entry " + mc + " does not contribute editable model content"},
	} {
		if _, err := s.AppendContextEdit(c.target, nil); err == nil || err.Error() != c.err {
			t.Errorf("edit %s: %v, want %q", c.target, err, c.err)
		}
	}
	if _, err := s.AppendContextEdit(u1, &Replacement{Content: []provider.Content{provider.TextContent("a"), provider.TextContent("b")}, IsString: true}); err == nil {
		t.Error("a string replacement of two blocks was accepted")
	}
	lines := map[string]string{}
	lines[a1] = ok(s.AppendContextEdit(a1, str("two, shorter")))
	lines[tr] = ok(s.AppendContextEdit(tr, nil))
	lines[u1] = ok(s.AppendContextEdit(u1, str("one, edited")))
	lines[cm] = ok(s.AppendContextEdit(cm, &Replacement{Content: []provider.Content{provider.TextContent("blocks")}}))
	want := map[string]string{
		a1: `"targetId":"` + a1 + `","replacement":{"content":[{"type":"text","text":"two, shorter"}]}}`,
		tr: `"targetId":"` + tr + `","replacement":null}`,
		u1: `"targetId":"` + u1 + `","replacement":{"content":"one, edited"}}`,
		cm: `"targetId":"` + cm + `","replacement":{"content":[{"type":"text","text":"blocks"}]}}`,
	}
	for target, id := range lines {
		raw, _ := s.Entry(id).Raw()
		if !strings.HasPrefix(string(raw), `{"type":"context_edit","id":"`+id+`","parentId":"`) || !strings.HasSuffix(string(raw), want[target]) {
			t.Errorf("line %s\nwant it to end %s", raw, want[target])
		}
	}
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx), []string{"system", "user", "assistant", "custom"}, "roles")
	eq(t, provider.TextOf(ctx.Messages[1].(*provider.UserMessage).Content, ""), "one, edited", "user")
	eq(t, ctx.Messages[1].(*provider.UserMessage).ContentIsString, true, "user content is a string")
	eq(t, provider.TextOf(ctx.Messages[2].(*provider.AssistantMessage).Content, ""), "two, shorter", "assistant")
	// the entries themselves are unchanged
	m, _ := s.Entry(u1).Message()
	eq(t, provider.TextOf(m.(*provider.UserMessage).Content, ""), "one", "stored user message")

	// an entry on another branch cannot be edited
	if err := s.Branch(u1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendContextEdit(a1, nil); err == nil || err.Error() != "Entry "+a1+" is not on the active branch" {
		t.Errorf("edit off the branch: %v", err)
	}
}

// A compaction that keeps nothing names itself as the first kept entry (pi 1.6's retain-none), and
// records the summary request's usage between details and fromHook, as pi writes it.
func TestRetainNoneCompaction(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	ok(s.AppendMessage(userMsg("one")))
	ok(s.AppendMessage(assistantMsg("two")))
	u := provider.Usage{Input: 7, Output: 3, TotalTokens: 10}
	id := ok(s.AppendCompaction("sum", "", 99, nil, false, &u))
	raw, _ := s.Entry(id).Raw()
	want := `"summary":"sum","firstKeptEntryId":"` + id + `","tokensBefore":99,"usage":{"input":7,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"fromHook":false}`
	if !strings.HasSuffix(string(raw), want) {
		t.Errorf("line %s\nwant it to end %s", raw, want)
	}
	ok(s.AppendMessage(userMsg("three")))
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, roleNames(ctx), []string{"compactionSummary", "user"}, "roles")
	if got := s.TotalUsage(); got.Input != 1+7 || got.Output != 1+3 {
		t.Errorf("totals %+v", got)
	}
}

// A tool result that reports usage (a tool that called a model) counts in the totals, whether
// appended or loaded, as in pi 1.6's get_session_stats.
func TestToolResultUsageCounts(t *testing.T) {
	ok := mustAppend(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok(s.AppendMessage(userMsg("go")))
	ok(s.AppendMessage(assistantMsg("calling")))
	ok(s.AppendMessage(&provider.ToolResultMessage{ToolCallID: "c", ToolName: "t", Content: []provider.Content{provider.TextContent("r")},
		Usage: &provider.Usage{Input: 40, Output: 2, TotalTokens: 42, Cost: provider.Cost{Total: 0.25}}, Timestamp: 1}))
	if u := s.TotalUsage(); u.Input != 41 || u.Output != 3 || u.Cost.Total != 0.25 {
		t.Errorf("appended: totals %+v", u)
	}
	s.Close()
	s, err = Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u := s.TotalUsage(); u.Input != 41 || u.Output != 3 || u.Cost.Total != 0.25 {
		t.Errorf("loaded: totals %+v", u)
	}
}
