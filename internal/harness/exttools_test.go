package harness

import (
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
)

func toolNames(list []loop.Tool) []string {
	var out []string
	for _, t := range list {
		out = append(out, t.Definition().Name)
	}
	return out
}

// As pi's refreshed tool registry: new names become active, a re-registration replaces its tool
// and keeps it inactive when the user made it so, an excluded tool stays inactive, and a tool
// that goes gives back the built-in it had replaced.
func TestSyncExtensionTools(t *testing.T) {
	builtinRead := promptedTool{name: "read", snippet: "Read file contents"}
	f := newFixture(t, nil, func(o *Options) {
		o.Tools = []loop.Tool{builtinRead, promptedTool{name: "bash"}}
		o.Loadout = &ToolLoadout{Available: o.Tools, Allowed: func(name string) bool { return name != "secret" }}
	})
	s := f.s
	active := func() []string { return toolNames(s.Agent().Tools()) }

	s.SyncExtensionTools([]loop.Tool{promptedTool{name: "echo_session", snippet: "v1"}, promptedTool{name: "secret"}})
	if got := active(); !slices.Equal(got, []string{"read", "bash", "echo_session"}) {
		t.Fatalf("after the first registration, active %v", got)
	}
	if got := toolNames(s.AllTools()); !slices.Contains(got, "secret") {
		t.Fatalf("the excluded tool is not even registered: %v", got)
	}

	s.SetActiveTools([]string{"read", "bash"})
	s.SyncExtensionTools([]loop.Tool{promptedTool{name: "echo_session", snippet: "v2"}, promptedTool{name: "secret"},
		promptedTool{name: "foo_bar"}, promptedTool{name: "read", snippet: "extension read"}})
	if got := active(); !slices.Equal(got, []string{"read", "bash", "foo_bar"}) {
		t.Fatalf("after the second registration, active %v (echo_session was switched off)", got)
	}
	if snippet, _ := s.Agent().Tools()[0].(PromptedTool).PromptLines(); snippet != "extension read" {
		t.Errorf("read is still the built-in one: %q", snippet)
	}
	s.SetActiveTools([]string{"read", "echo_session"})
	if snippet, _ := s.Agent().Tools()[1].(PromptedTool).PromptLines(); snippet != "v2" {
		t.Errorf("echo_session was not replaced: %q", snippet)
	}

	s.SyncExtensionTools([]loop.Tool{promptedTool{name: "foo_bar"}})
	if got := active(); !slices.Equal(got, []string{"read"}) {
		t.Fatalf("after the tools went, active %v", got)
	}
	if snippet, _ := s.Agent().Tools()[0].(PromptedTool).PromptLines(); snippet != builtinRead.snippet {
		t.Errorf("the built-in read did not come back: %q", snippet)
	}
	if got := toolNames(s.AllTools()); !slices.Equal(got, []string{"read", "bash", "foo_bar"}) {
		t.Errorf("all tools %v", got)
	}
}
