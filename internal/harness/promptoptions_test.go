package harness

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// Options through pi's systemPromptOptions and back build the same prompt; what a handler changes
// in the JSON (a section added, a built-in tool's snippet deleted, a guideline) shows in the prompt.
func TestPiPromptOptionsRoundTrip(t *testing.T) {
	o := SystemPromptOptions{Cwd: "/p", Tools: []string{"read", "bash", "mine"}, AppendPrompts: []string{"one", "two"},
		ToolPrompts:  map[string]ToolPrompt{"mine": {Snippet: "My tool", Guidelines: []string{"Use mine."}}},
		ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: "tabs"}},
		Skills:       []Skill{{Name: "s", Description: "d", FilePath: "/s/SKILL.md"}},
		Sections:     []provider.PromptSection{{Name: "zeta", Text: "z"}, {Name: "alpha", Text: "a"}}}
	data, err := o.MarshalPi()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalPiPromptOptions(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := BuildSystemPrompt(back), BuildSystemPrompt(o); got != want {
		t.Fatalf("round trip\n got %q\nwant %q", got, want)
	}

	var edit map[string]any
	if err := json.Unmarshal(data, &edit); err != nil {
		t.Fatal(err)
	}
	edit["sections"].(map[string]any)["tool_guidance"] = "- be careful"
	delete(edit["toolSnippets"].(map[string]any), "read")
	edit["promptGuidelines"] = []string{"Extra rule."}
	data, _ = json.Marshal(edit)
	edited, err := UnmarshalPiPromptOptions(data)
	if err != nil {
		t.Fatal(err)
	}
	got := BuildSystemPrompt(edited)
	for _, want := range []string{"<tool_guidance>\n- be careful\n</tool_guidance>", "- Extra rule.\n- Be concise", "- mine: My tool"} {
		if !strings.Contains(got, want) {
			t.Errorf("edited prompt lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "- read: Read file contents") {
		t.Errorf("the deleted snippet is back:\n%s", got)
	}

	edit["sections"].(map[string]any)["Bad Name"] = "x"
	data, _ = json.Marshal(edit)
	if _, err := UnmarshalPiPromptOptions(data); err == nil || !strings.Contains(err.Error(), "Bad Name") {
		t.Errorf("an invalid section name: %v", err)
	}
}
