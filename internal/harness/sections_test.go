package harness

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// fakeSections is a SectionSource whose section the test changes; Prepare records each prompt.
type fakeSections struct {
	mu       sync.Mutex
	text     string
	prepared int
}

func (f *fakeSections) Prepare(context.Context) { f.mu.Lock(); f.prepared++; f.mu.Unlock() }

func (f *fakeSections) Sections() []provider.PromptSection {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.text == "" {
		return nil
	}
	return []provider.PromptSection{{Name: "mcp_servers", Text: f.text}}
}

func (f *fakeSections) set(text string) { f.mu.Lock(); f.text = text; f.mu.Unlock() }

// A source's section follows pi's own on the first prompt; a change reaches the transcript as a patch
// with the next prompt, and its removal as a removal.
func TestSectionSourceIsDeclaredAndPatched(t *testing.T) {
	src := &fakeSections{text: "MCP servers whose tools are not declared to you.\n- mcp__docs (tool_search)"}
	f := newFixture(t, []scriptedTurn{textTurn("one"), textTurn("two"), textTurn("three"), textTurn("four")}, func(o *Options) {
		o.Sections = src
	})
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "unchanged", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	src.set("MCP servers whose tools are not declared to you.\n- mcp__docs (tool_search): Search the docs")
	if err := f.s.Prompt(ctx, "changed", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	src.set("")
	if err := f.s.Prompt(ctx, "removed", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if src.prepared != 4 {
		t.Errorf("Prepare ran %d times for 4 prompts", src.prepared)
	}
	_, msgs := fileMessages(t, f.store.SessionFile())
	if got := roleList(msgs); got != "system user assistant user assistant system user assistant system user assistant" {
		t.Fatalf("messages in the file: %s", got)
	}
	first := systemOf(t, msgs[0].Raw).Sections
	last := first[len(first)-1]
	if last.Name != "mcp_servers" || last.Text != "<mcp_servers>\nMCP servers whose tools are not declared to you.\n- mcp__docs (tool_search)\n</mcp_servers>" ||
		first[len(first)-2].Name != SectionCwd {
		t.Errorf("first system message's sections end with %+v", first[len(first)-2:])
	}
	patch := systemOf(t, msgs[5].Raw).Sections
	if len(patch) != 1 || patch[0].Name != "mcp_servers" || !strings.Contains(patch[0].Text, ": Search the docs\n</mcp_servers>") {
		t.Errorf("patch: %+v", patch)
	}
	removal := systemOf(t, msgs[8].Raw).Sections
	if len(removal) != 1 || removal[0].Name != "mcp_servers" || !removal[0].Removed {
		t.Errorf("removal: %+v", removal)
	}
	if strings.Contains(f.s.SystemPrompt(), "mcp_servers") {
		t.Errorf("the removed section is still in the prompt")
	}
	if got := f.script.requests[2].SystemPrompt; !strings.HasSuffix(got, "<mcp_servers>\nMCP servers whose tools are not declared to you.\n- mcp__docs (tool_search): Search the docs\n</mcp_servers>") {
		t.Errorf("third request's prompt ends %q", got[max(0, len(got)-200):])
	}
}
