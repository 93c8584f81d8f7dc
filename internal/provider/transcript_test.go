package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

func tool(name, desc string) ToolDefinition {
	return ToolDefinition{Name: name, Description: desc, Parameters: json.RawMessage(`{"type":"object"}`)}
}

func sections(kv ...string) []PromptSection {
	var out []PromptSection
	for i := 0; i < len(kv); i += 2 {
		out = append(out, PromptSection{Name: kv[i], Text: kv[i+1]})
	}
	return out
}

func TestSystemMessageKeyOrder(t *testing.T) {
	m := NewSystemMessage(5)
	m.Sections = []PromptSection{{Name: "preamble", Text: "Hi <there>"}, {Name: "skills", Removed: true}}
	m.ToolsAdded = []ToolDefinition{{Name: "read", Description: "Read", Parameters: json.RawMessage("{ \"type\": \"object\" }"),
		ConstrainedSampling: json.RawMessage(`{"type":"json_schema","strict":"prefer"}`)}}
	m.ToolsRemoved = []string{"write"}
	got, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"system","content":"","sections":{"preamble":"Hi <there>","skills":null},"timestamp":5,` +
		`"toolsAdded":[{"name":"read","description":"Read","parameters":{"type":"object"},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}],` +
		`"toolsRemoved":[{"name":"write"}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// A replayed checkpoint, as a compaction stores it, has the timestamp last.
	cp := CurrentSystemMessage([]Message{m})
	got, _ = cp.MarshalJSON()
	want = `{"role":"system","content":"","sections":{"preamble":"Hi <there>"},` +
		`"toolsAdded":[{"name":"read","description":"Read","parameters":{"type":"object"},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}],"timestamp":5}`
	if string(got) != want {
		t.Errorf("checkpoint\ngot  %s\nwant %s", got, want)
	}

	// A tools-only patch has no sections key.
	p := NewSystemMessage(7)
	p.ToolsRemoved = []string{"bash"}
	got, _ = p.MarshalJSON()
	if want := `{"role":"system","content":"","timestamp":7,"toolsRemoved":[{"name":"bash"}]}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCurrentSystemMessageReplaysInOrder(t *testing.T) {
	first := NewSystemMessage(10)
	first.Sections = sections("preamble", "P", "tools", "T", "cwd", "C")
	first.ToolsAdded = []ToolDefinition{tool("read", "r"), tool("bash", "b"), tool("edit", "e")}
	user := NewUserMessage("hi")
	patch := NewSystemMessage(20)
	patch.Content = []Content{TextContent("extra")}
	patch.Sections = []PromptSection{{Name: "tools", Text: "T2"}, {Name: "preamble", Removed: true}, {Name: "skills", Text: "S"}}
	patch.ToolsRemoved = []string{"read"}
	patch.ToolsAdded = []ToolDefinition{tool("bash", "b2"), tool("read", "r2")}
	again := NewSystemMessage(30)
	again.Sections = sections("preamble", "P2")
	again.Content = []Content{TextContent("more")}

	got := CurrentSystemMessage([]Message{first, user, patch, again})
	wantSections := sections("tools", "T2", "cwd", "C", "skills", "S", "preamble", "P2")
	if !reflect.DeepEqual(got.Sections, wantSections) {
		t.Errorf("sections %+v, want %+v", got.Sections, wantSections)
	}
	var names []string
	for _, tl := range got.ToolsAdded {
		names = append(names, tl.Name+":"+tl.Description)
	}
	// bash is replaced in place; read was removed, so its new declaration goes last.
	if want := []string{"bash:b2", "edit:e", "read:r2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if got.Timestamp != 10 || got.Text() != "extra\n\nmore" {
		t.Errorf("timestamp %d content %q", got.Timestamp, got.Text())
	}
	if text := SystemMessageText(got); text != "extra\n\nmore\n\nT2\n\nC\n\nS\n\nP2" {
		t.Errorf("text %q", text)
	}
	if CurrentSystemMessage([]Message{user}) != nil || CurrentSystemPrompt([]Message{user}) != "" {
		t.Error("a transcript without system messages has no system message")
	}
}

func TestCollapseSystemMessages(t *testing.T) {
	first := NewSystemMessage(1)
	first.Sections = sections("preamble", "P")
	first.ToolsAdded = []ToolDefinition{tool("read", "r")}
	user := NewUserMessage("hi")
	patch := NewSystemMessage(2)
	patch.Sections = sections("cwd", "C")
	prompt, tools, rest := CollapseSystemMessages([]Message{first, user, patch})
	if prompt != "P\n\nC" || len(tools) != 1 || tools[0].Name != "read" || len(rest) != 1 || rest[0] != user {
		t.Errorf("prompt %q tools %v rest %v", prompt, tools, rest)
	}
	msgs := []Message{user}
	if p, tl, r := CollapseSystemMessages(msgs); p != "" || tl != nil || &r[0] != &msgs[0] {
		t.Error("without system messages the transcript is passed through")
	}
}

func TestToolStateChanges(t *testing.T) {
	prev := []ToolDefinition{tool("read", "r"), tool("bash", "b"), tool("ls", "l")}
	spaced := tool("ls", "l")
	spaced.Parameters = json.RawMessage(`{ "type" : "object" }`)
	cur := []ToolDefinition{tool("bash", "b2"), spaced, tool("grep", "g")}
	added, removed := ToolStateChanges(prev, cur)
	var names []string
	for _, a := range added {
		names = append(names, a.Name)
	}
	if !reflect.DeepEqual(names, []string{"bash", "grep"}) || !reflect.DeepEqual(removed, []string{"read", "bash"}) {
		t.Errorf("added %v removed %v", names, removed)
	}
	if a, r := ToolStateChanges(prev, prev); a != nil || r != nil {
		t.Errorf("no change: %v %v", a, r)
	}
	cs := tool("read", "r")
	cs.ConstrainedSampling = json.RawMessage(`{"type":"json_schema"}`)
	if DeclarationsEqual(&cs, &prev[0]) {
		t.Error("constrainedSampling is part of the declaration")
	}
}

func TestDiffSections(t *testing.T) {
	prev := sections("preamble", "P", "tools", "T", "skills", "S", "cwd", "C")
	wanted := sections("preamble", "P", "tools", "T2", "cwd", "C", "addendum", "A")
	want := []PromptSection{{Name: "tools", Text: "T2"}, {Name: "addendum", Text: "A"}, {Name: "skills", Removed: true}}
	if got := DiffSections(prev, wanted); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := DiffSections(prev, prev); got != nil {
		t.Errorf("no change: %+v", got)
	}
	if got := DiffSections(nil, wanted); !reflect.DeepEqual(got, wanted) {
		t.Errorf("from nothing: %+v", got)
	}
}
