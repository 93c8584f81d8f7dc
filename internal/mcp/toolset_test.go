package mcp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/mcp/mcptest"
	"github.com/pi-go/pi-go/internal/provider"
)

// fakeAgent is the agent's tool set as the toolset sees it.
type fakeAgent struct {
	mu    sync.Mutex
	tools []loop.Tool
	subs  []func(loop.Event)
}

func (a *fakeAgent) Tools() []loop.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tools)
}
func (a *fakeAgent) SetTools(t []loop.Tool) { a.mu.Lock(); a.tools = slices.Clone(t); a.mu.Unlock() }
func (a *fakeAgent) Subscribe(fn func(loop.Event)) func() {
	a.mu.Lock()
	a.subs = append(a.subs, fn)
	a.mu.Unlock()
	return func() {}
}
func (a *fakeAgent) emit(e loop.Event) {
	a.mu.Lock()
	subs := slices.Clone(a.subs)
	a.mu.Unlock()
	for _, s := range subs {
		s(e)
	}
}
func (a *fakeAgent) names() []string {
	var out []string
	for _, t := range a.Tools() {
		out = append(out, t.Definition().Name)
	}
	return out
}

func call(t *testing.T, tool loop.Tool, args string) loop.ToolResult {
	t.Helper()
	res, err := tool.Execute(context.Background(), loop.ToolCall{ID: "1", Name: tool.Definition().Name, Args: json.RawMessage(args)}, nil)
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.Definition().Name, args, err)
	}
	return res
}

func find(tools []loop.Tool, name string) loop.Tool {
	for _, t := range tools {
		if t.Definition().Name == name {
			return t
		}
	}
	return nil
}

func TestToolSearchLoadsDeferredToolsAndDirectToolsAppear(t *testing.T) {
	m := newTestManager(t, stdioServer("local"),
		`"direct-one": {"command": "`+testServerBin+`", "exposure": "hidden", "toolExposure": {"echo": "direct"}}`)
	ts := NewToolset(m)
	agent := &fakeAgent{}
	static := ts.StaticTools()
	agent.SetTools(static)
	ts.Attach(agent)
	if got := agent.names(); !slices.Equal(got, []string{"tool_search", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}) {
		t.Fatalf("static tools = %v", got)
	}
	// A run starting waits for servers with direct tools and declares them.
	agent.emit(loop.Event{Type: loop.EventAgentStart})
	if got := agent.names(); !slices.Contains(got, "mcp__direct_one__echo") || slices.Contains(got, "mcp__direct_one__add") {
		t.Fatalf("after agent_start: %v", got)
	}
	res := call(t, find(static, "tool_search"), `{"query": "echo text back", "limit": 1}`)
	want := "Loaded 1 tool. They are available from your next call:\n- mcp__local__echo: Echo the given text back unchanged"
	if res.Content[0].Text != want {
		t.Fatalf("tool_search = %q", res.Content[0].Text)
	}
	if d := res.Details.(map[string]any)["loaded"].([]string); !slices.Equal(d, []string{"mcp__local__echo"}) {
		t.Fatalf("details = %v", d)
	}
	if !slices.Contains(agent.names(), "mcp__local__echo") {
		t.Fatalf("not loaded: %v", agent.names())
	}
	// Loaded and direct tools are not found again; hidden tools never are.
	res = call(t, find(static, "tool_search"), `{"query": "echo"}`)
	if res.Content[0].Text != "No matching tools found." {
		t.Fatalf("second search = %q", res.Content[0].Text)
	}
	if _, err := find(static, "tool_search").Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(`{"query": " "}`)}, nil); err == nil || err.Error() != "query must not be empty" {
		t.Fatal(err)
	}
	if _, err := find(static, "tool_search").Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(`{"query": "x", "limit": 1.5}`)}, nil); err == nil || err.Error() != "limit must be a positive integer" {
		t.Fatal(err)
	}
	// The loaded tool runs through the server.
	echo := find(agent.Tools(), "mcp__local__echo")
	res = call(t, echo, `{"text": "round trip"}`)
	if res.Content[0].Text != "round trip" || res.IsError {
		t.Fatalf("echo = %+v", res)
	}
	if d := res.Details.(map[string]any); d["server"] != "local" || d["tool"] != "echo" {
		t.Fatalf("details = %v", d)
	}
}

func TestResultsMapToToolResults(t *testing.T) {
	m := newTestManager(t, stdioServer("local"))
	wait(t, m)
	ts := NewToolset(m)
	tools := map[string]*Tool{}
	for _, tool := range ts.Tools() {
		tools[tool.ToolName()] = tool
	}
	img := call(t, tools["image"], `{}`)
	if len(img.Content) != 2 || img.Content[1].Type != provider.ContentImage || img.Content[1].Data != mcptest.DecodePNG() || img.Content[1].MimeType != "image/png" {
		t.Fatalf("image = %+v", img.Content)
	}
	sum := call(t, tools["add"], `{"a": 2, "b": 3}`)
	sc := sum.StructuredContent.(map[string]any)
	if sc["structuredContent"].(map[string]any)["sum"] != 5.0 || !strings.Contains(sum.Content[0].Text, `"sum":5`) {
		t.Fatalf("add = %+v / %+v", sum.Content, sc)
	}
	fail := call(t, tools["fail"], `{}`)
	if !fail.IsError || fail.Content[0].Text != "it failed on purpose" {
		t.Fatalf("fail = %+v", fail)
	}
	var updates []string
	res, err := tools["slow"].Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(`{"steps": 2, "finish": true}`)}, func(r loop.ToolResult) {
		updates = append(updates, r.Content[0].Text)
	})
	if err != nil || res.Content[0].Text != "done" {
		t.Fatal(err, res)
	}
	if len(updates) > 2 {
		t.Fatalf("updates = %v", updates)
	}
	// Resources: listing names the server, reading gives text; a binary one is saved to a file.
	list := call(t, find(ts.StaticTools(), "list_mcp_resources"), `{}`)
	if !strings.Contains(list.Content[0].Text, `{"server":"local","uri":"test://readme"`) && !strings.Contains(list.Content[0].Text, `"server":"local"`) {
		t.Fatalf("list = %s", list.Content[0].Text)
	}
	read := call(t, find(ts.StaticTools(), "read_mcp_resource"), `{"server": "local", "uri": "test://readme"}`)
	if read.Content[0].Text != "hello from a resource" {
		t.Fatalf("read = %+v", read.Content)
	}
	blob := call(t, find(ts.StaticTools(), "read_mcp_resource"), `{"server": "local", "uri": "test://blob.bin"}`)
	text := blob.Content[0].Text
	if !strings.HasPrefix(text, "[Binary resource test://blob.bin (application/octet-stream, 4B) saved to ") {
		t.Fatalf("blob = %q", text)
	}
	path := strings.TrimSuffix(text[strings.Index(text, "saved to ")+len("saved to "):], "]")
	defer os.Remove(path)
	if data, err := os.ReadFile(path); err != nil || string(data) != "\x00\x01\x02\x03" {
		t.Fatalf("saved blob: %q %v", data, err)
	}
	if _, err := find(ts.StaticTools(), "read_mcp_resource").Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(`{"server": "nope", "uri": "x"}`)}, nil); err == nil || !strings.Contains(err.Error(), `MCP server "nope" has no resources. Servers with resources: local`) {
		t.Fatal(err)
	}
}

func TestConvertResultBlocks(t *testing.T) {
	m := NewManager(&Config{}, Options{})
	size := int64(2048)
	res := m.convertResult("srv", "t", &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.ResourceLink{URI: "file:///a.txt", Name: "a", MIMEType: "text/plain", Size: &size, Description: "the file"},
		&sdk.AudioContent{MIMEType: "audio/wav"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://j", MIMEType: "application/json", Blob: []byte(`{"a":1}`)}},
	}})
	want := []string{`[Resource file:///a.txt "a" (text/plain, 2.0KB): the file]`, "[audio audio/wav omitted]", `{"a":1}`}
	for i, w := range want {
		if res.Content[i].Text != w {
			t.Errorf("block %d = %q, want %q", i, res.Content[i].Text, w)
		}
	}
	empty := m.convertResult("srv", "t", &sdk.CallToolResult{IsError: true})
	if empty.Content[0].Text != "MCP tool srv/t returned an error" || !empty.IsError {
		t.Fatalf("empty error = %+v", empty)
	}
	long := strings.Repeat("x", 30*1024)
	cut := m.convertResult("srv", "t", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: long}}})
	text := cut.Content[0].Text
	full, _ := cut.Details.(map[string]any)["fullOutputPath"].(string)
	defer os.Remove(full)
	if !strings.HasPrefix(text, "Warning: truncated output (original token count: 7680)\nTotal output lines: 1\n\n") || !strings.Contains(text, "…10240 chars truncated…") || full == "" {
		t.Fatalf("truncated = %q…", text[:200])
	}
}

func TestRankPrefersNamesAndCoverage(t *testing.T) {
	docs := []searchDoc{
		newSearchDoc("mcp__gh__list_issues", "List issues in a repository", "gh GitHub"),
		newSearchDoc("mcp__gh__create_issue", "Create an issue in a repository", "gh GitHub"),
		newSearchDoc("mcp__fs__read_file", "Read a file; mentions issue once", "fs files"),
		newSearchDoc("mcp__win__window", "A window tool", "win"),
		newSearchDoc("mcp__shot__capture", "Take a screenshot of a window", "shot"),
	}
	names := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, docs[i].name)
		}
		return out
	}
	if got := names(rank("create issue", docs, 2)); !slices.Equal(got, []string{"mcp__gh__create_issue", "mcp__gh__list_issues"}) {
		t.Errorf("create issue → %v", got)
	}
	if got := names(rank("screenshot window", docs, 1)); !slices.Equal(got, []string{"mcp__shot__capture"}) {
		t.Errorf("coverage first → %v", got)
	}
	if got := names(rank("read_file", docs, 8)); got[0] != "mcp__fs__read_file" {
		t.Errorf("exact name → %v", got)
	}
	if got := rank("the of and", docs, 8); len(got) != 0 {
		t.Errorf("stop words only → %v", got)
	}
}
