package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func defaultTools(t *testing.T, cwd string) []loop.Tool {
	t.Helper()
	tools, warns := BuildTools(DefaultToolNames, ToolOptions{Cwd: cwd})
	if len(warns) != 0 {
		t.Fatal(warns)
	}
	return tools
}

func definitionsOf(tools []loop.Tool) []provider.ToolDefinition {
	var out []provider.ToolDefinition
	for _, t := range tools {
		out = append(out, t.Definition())
	}
	return out
}

// fileMessage is a message entry of a session file: the envelope, the role and the message as written.
type fileMessage struct {
	ID, ParentID, Role string
	Raw                json.RawMessage
}

func fileMessages(t *testing.T, path string) (all []map[string]any, msgs []fileMessage) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Type     string          `json:"type"`
			ID       string          `json:"id"`
			ParentID *string         `json:"parentId"`
			Message  json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		all = append(all, m)
		if e.Type != "message" {
			continue
		}
		var head struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(e.Message, &head)
		parent := ""
		if e.ParentID != nil {
			parent = *e.ParentID
		}
		msgs = append(msgs, fileMessage{ID: e.ID, ParentID: parent, Role: head.Role, Raw: e.Message})
	}
	return all, msgs
}

func systemOf(t *testing.T, raw json.RawMessage) *provider.SystemMessage {
	t.Helper()
	m, err := provider.UnmarshalMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*provider.SystemMessage)
}

func roleList(msgs []fileMessage) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return strings.Join(out, " ")
}

// The first prompt of a session declares every section and tool in a system message of its own,
// before the user message in the file and in the events; later prompts add none.
func TestFirstPromptDeclaresThePromptAndTheTools(t *testing.T) {
	var tools []loop.Tool
	f := newFixture(t, []scriptedTurn{textTurn("one"), textTurn("two")}, func(o *Options) {
		tools = defaultTools(t, o.Cwd)
		o.Tools = tools
		o.Prompt.AppendPrompts = []string{"Be brief."}
	})
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "second", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	all, msgs := fileMessages(t, f.store.SessionFile())
	if got := roleList(msgs); got != "system user assistant user assistant" {
		t.Fatalf("messages in the file: %s", got)
	}
	// pi 1.6's chain: thinking_level_change → system → user
	tlc := all[2]
	if tlc["type"] != "thinking_level_change" || msgs[0].ParentID != tlc["id"] || msgs[1].ParentID != msgs[0].ID {
		t.Errorf("parent chain: %v, system %+v, user %+v", tlc, msgs[0], msgs[1])
	}
	wantSections := BuildSystemPromptSections(SystemPromptOptions{Cwd: f.dir, Tools: DefaultToolNames, AppendPrompts: []string{"Be brief."}})
	sys := systemOf(t, msgs[0].Raw)
	if !reflect.DeepEqual(sys.Sections, wantSections) || !reflect.DeepEqual(sys.ToolsAdded, definitionsOf(tools)) || sys.ToolsRemoved != nil {
		t.Errorf("system message %s", msgs[0].Raw)
	}
	if !strings.HasPrefix(string(msgs[0].Raw), `{"role":"system","content":"","sections":{"preamble":`) ||
		!strings.Contains(string(msgs[0].Raw), `"timestamp":`+jsonNumber(sys.Timestamp)+`,"toolsAdded":[{"name":"read","description":`) {
		t.Errorf("key order: %.200s", msgs[0].Raw)
	}
	// The events carry the same message, before the user's.
	var starts []string
	for _, e := range f.events.ofType(string(loop.EventMessageStart)) {
		starts = append(starts, e.Agent.Message.Role())
	}
	if strings.Join(starts, " ") != "system user assistant user assistant" {
		t.Errorf("message_start roles: %v", starts)
	}
	ends := f.events.ofType(string(loop.EventAgentEnd))
	if len(ends) != 2 || ends[0].Agent.Messages[0].Role() != provider.RoleSystem || ends[1].Agent.Messages[0].Role() != provider.RoleUser {
		t.Errorf("agent_end messages")
	}
	// Both requests send the replayed prompt and tools; no system message among the messages.
	prompt := BuildSystemPrompt(SystemPromptOptions{Cwd: f.dir, Tools: DefaultToolNames, AppendPrompts: []string{"Be brief."}})
	for i, req := range f.script.requests {
		if req.SystemPrompt != prompt || !reflect.DeepEqual(req.Tools, definitionsOf(tools)) {
			t.Errorf("request %d: prompt or tools differ", i)
		}
		for _, m := range req.Messages {
			if m.Role() == provider.RoleSystem {
				t.Errorf("request %d carries a system message", i)
			}
		}
	}
	if f.s.SystemPrompt() != prompt {
		t.Errorf("SystemPrompt() %q", f.s.SystemPrompt())
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

// openSession opens path with a harness session (a fresh script, tools and prompt options).
func openSession(t *testing.T, path, cwd string, turns []scriptedTurn, mutate func(*Options)) (*Session, *script) {
	t.Helper()
	store, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &script{turns: turns}
	opts := Options{Cwd: cwd, Settings: config.InMemorySettings(config.Settings{}), Store: store, Stream: sc.stream,
		Model: testModel, Tools: defaultTools(t, cwd)}
	if mutate != nil {
		mutate(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, sc
}

// A session written before system messages existed (pi 0.73.1, pi-go before) gets its full system
// message with the next prompt, after its old entries, which stay as they were.
func TestOldSessionDeclaresOnTheNextPrompt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.jsonl")
	old := `{"type":"session","version":3,"id":"01a00000-0000-7000-8000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"` + dir + `"}
{"type":"thinking_level_change","id":"a0000001","parentId":null,"timestamp":"2026-01-02T03:04:05.000Z","thinkingLevel":"off"}
{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"hi","timestamp":1767323046000}}
{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"openai-completions","provider":"test","model":"m1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767323047000}}
`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, sc := openSession(t, path, dir, []scriptedTurn{textTurn("again")}, nil)
	if err := s.Prompt(context.Background(), "next", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), old) {
		t.Fatal("the old lines changed")
	}
	_, msgs := fileMessages(t, path)
	if got := roleList(msgs); got != "user assistant system user assistant" || msgs[2].ParentID != "a0000003" {
		t.Fatalf("messages: %s (system's parent %s)", got, msgs[2].ParentID)
	}
	sys := systemOf(t, msgs[2].Raw)
	if len(sys.Sections) != 4 || len(sys.ToolsAdded) != 4 {
		t.Errorf("a full declaration: %d sections, %d tools", len(sys.Sections), len(sys.ToolsAdded))
	}
	req := sc.requests[0]
	if req.SystemPrompt != s.SystemPrompt() || len(req.Tools) != 4 || len(req.Messages) != 3 {
		t.Errorf("request: %d tools, %d messages", len(req.Tools), len(req.Messages))
	}
}

// A resumed session whose prompt or tools changed (another append, fewer tools) gets a patch of what
// changed: the sections by name, the tools removed.
func TestResumedSessionPatchesWhatChanged(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("one")}, func(o *Options) { o.Tools = defaultTools(t, o.Cwd) })
	if err := f.s.Prompt(context.Background(), "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	path := f.store.SessionFile()
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}

	s, sc := openSession(t, path, f.dir, []scriptedTurn{textTurn("two")}, func(o *Options) {
		o.Prompt.AppendPrompts = []string{"Be brief."}
		o.Tools = o.Tools[:2] // read, bash
	})
	if err := s.Prompt(context.Background(), "second", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	_, msgs := fileMessages(t, path)
	if got := roleList(msgs); got != "system user assistant system user assistant" {
		t.Fatalf("messages: %s", got)
	}
	patch := systemOf(t, msgs[3].Raw)
	var names []string
	for _, sec := range patch.Sections {
		names = append(names, sec.Name)
	}
	// The tool list and the rules change with the tools; the addendum is new.
	if strings.Join(names, ",") != "tools,rules,addendum" || patch.ToolsAdded != nil ||
		!reflect.DeepEqual(patch.ToolsRemoved, []string{"edit", "write"}) {
		t.Errorf("patch %s", msgs[3].Raw)
	}
	// Replayed, a section the patch adds comes last (pi 1.6 replays sections in the order they were
	// first declared), so the request differs from a fresh session's in where the addendum sits.
	want := BuildSystemPrompt(SystemPromptOptions{Cwd: f.dir, Tools: []string{"read", "bash"}}) + "\n\n<addendum>\nBe brief.\n</addendum>"
	if req := sc.requests[0]; req.SystemPrompt != want || len(req.Tools) != 2 {
		t.Errorf("request prompt %q, %d tools", req.SystemPrompt, len(req.Tools))
	}
}

// A new session (/new, RPC new_session) declares everything again in its own file.
func TestNewSessionDeclaresAgain(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("one"), textTurn("two")}, func(o *Options) { o.Tools = defaultTools(t, o.Cwd) })
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if msgs := f.s.Messages(); len(msgs) != 0 {
		t.Fatalf("a new session starts empty, not with %d messages", len(msgs))
	}
	if err := f.s.Prompt(ctx, "fresh", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	_, msgs := fileMessages(t, f.s.Store().SessionFile())
	if got := roleList(msgs); got != "system user assistant" {
		t.Fatalf("new session messages: %s", got)
	}
	if sys := systemOf(t, msgs[0].Raw); len(sys.Sections) != 4 || len(sys.ToolsAdded) != 4 {
		t.Errorf("new session's system message %s", msgs[0].Raw)
	}
}

// pi 1.6.0's own session (testdata/pi16/json-tool-run) resumed in pi-go: the next prompt removes pi's
// <docs> section (pi-go has no docs to point at) and sends pi-go's prompt; the tools pi declared are
// pi-go's, so none is declared again; pi's lines stay.
func TestPi16SessionResumesWithoutDocs(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/pi16/json-tool-run/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pi16.jsonl")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	const cwd = "/tmp/pi-fixture/proj"
	s, sc := openSession(t, path, cwd, []scriptedTurn{textTurn("again")}, nil)
	declared := s.Agent().SystemMessage()
	if err := s.Prompt(context.Background(), "next", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), string(orig)) {
		t.Fatal("pi's lines changed")
	}
	_, msgs := fileMessages(t, path)
	n := len(msgs)
	if msgs[n-3].Role != "system" || msgs[n-2].Role != "user" {
		t.Fatalf("appended: %s", roleList(msgs[n-3:]))
	}
	patch := systemOf(t, msgs[n-3].Raw)
	if !reflect.DeepEqual(patch.Sections, []provider.PromptSection{{Name: "docs", Removed: true}}) {
		t.Errorf("section patch %+v", patch.Sections)
	}
	// Tools are declared again exactly where pi's declaration and pi-go's differ.
	var differ []string
	for _, d := range definitionsOf(defaultTools(t, cwd)) {
		for _, p := range declared.ToolsAdded {
			if p.Name == d.Name && !provider.DeclarationsEqual(&p, &d) {
				differ = append(differ, d.Name)
			}
		}
	}
	var added []string
	for _, d := range patch.ToolsAdded {
		added = append(added, d.Name)
	}
	if len(differ) != 0 || added != nil || patch.ToolsRemoved != nil {
		t.Errorf("tools added %v removed %v; declarations that differ from pi's: %v", added, patch.ToolsRemoved, differ)
	}
	want := BuildSystemPrompt(SystemPromptOptions{Cwd: cwd, Tools: DefaultToolNames})
	if req := sc.requests[0]; req.SystemPrompt != want {
		t.Errorf("request prompt\n got %q\nwant %q", req.SystemPrompt, want)
	}
}

// pi 1.6.0's compacted RPC session (testdata/pi16/rpc) resumed in pi-go: the compaction's checkpoint
// is the declared prompt, so the next request sends what pi's first request after the compaction sent
// (requests/008.json), then the rest of the branch; the patch only removes pi's <docs>.
func TestPi16CompactedSessionResumesAsPi16Sends(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/pi16/rpc/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pi16.jsonl")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	const cwd = "/tmp/pi-fixture/proj"
	s, sc := openSession(t, path, cwd, []scriptedTurn{textTurn("again")}, nil)
	if got := s.Messages(); got[0].Role() != provider.RoleSystem || got[1].Role() != provider.RoleCompactionSummary {
		t.Fatalf("resumed transcript starts with %s, %s", got[0].Role(), got[1].Role())
	}
	if err := s.Prompt(context.Background(), "next", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	var piReq struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	data, err := os.ReadFile("../../testdata/pi16/rpc/requests/008.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &piReq); err != nil {
		t.Fatal(err)
	}
	var piPrompt string
	_ = json.Unmarshal(piReq.Messages[0].Content, &piPrompt)
	req := sc.requests[0]
	if want := BuildSystemPrompt(SystemPromptOptions{Cwd: cwd, Tools: DefaultToolNames}); req.SystemPrompt != want ||
		!strings.HasPrefix(piPrompt, strings.SplitN(want, "\n\n<cwd>", 2)[0]) {
		t.Errorf("request prompt %q", req.SystemPrompt)
	}
	conv := ConvertToLLM(req.Messages)
	if len(conv) != 5 {
		t.Fatalf("%d messages sent", len(conv))
	}
	for i, pm := range piReq.Messages[1:] {
		var blocks []provider.Content
		if err := json.Unmarshal(pm.Content, &blocks); err != nil {
			t.Fatal(err)
		}
		got, ok := conv[i].(*provider.UserMessage)
		if !ok || provider.TextOf(got.Content, "") != provider.TextOf(blocks, "") {
			t.Errorf("message %d: %T %q, pi sent %q", i, conv[i], provider.TextOf(got.Content, ""), provider.TextOf(blocks, ""))
		}
	}
	_, msgs := fileMessages(t, path)
	patch := systemOf(t, msgs[len(msgs)-3].Raw)
	if len(patch.Sections) != 1 || patch.Sections[0].Name != "docs" || !patch.Sections[0].Removed {
		t.Errorf("patch sections %+v", patch.Sections)
	}
}
