package harness

import (
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// declaringStore is a session whose transcript declared the given tools, then a question and answer.
func declaringStore(t *testing.T, tools ...string) *session.Manager {
	t.Helper()
	store := session.InMemory(t.TempDir())
	sys := provider.NewSystemMessage(1)
	sys.Sections = []provider.PromptSection{{Name: "preamble", Text: "Be brief."}}
	available, _ := BuildTools(BuiltinToolNames, ToolOptions{Cwd: t.TempDir()})
	for _, tl := range PickTools(available, tools) {
		sys.ToolsAdded = append(sys.ToolsAdded, tl.Definition())
	}
	for _, m := range []provider.Message{sys, provider.NewUserMessage("hi"),
		&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("hello")}, Provider: testModel.Provider, Model: testModel.ID, StopReason: provider.StopReasonStop}} {
		if _, err := store.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

func activeToolNames(s *Session) string {
	var names []string
	for _, tl := range s.Agent().Tools() {
		names = append(names, tl.Definition().Name)
	}
	return strings.Join(names, ",")
}

// A resumed session continues with the tools its transcript declared (pi 1.6's
// _restoreToolsFromTranscript), --tools +name/-name applied; --tools names, --no-tools and
// --exclude-tools keep their say; a session that declared nothing keeps the startup tools.
func TestResumedSessionRestoresItsDeclaredTools(t *testing.T) {
	for _, c := range []struct {
		name     string
		declared []string
		sel      ToolSelection
		want     string
	}{
		{"declared set", []string{"bash"}, ToolSelection{}, "bash"},
		{"with modifiers", []string{"bash"}, ToolSelection{Tools: []string{"+grep", "-bash"}, ToolsSet: true}, "grep"},
		{"excluded", []string{"bash", "read"}, ToolSelection{Exclude: []string{"bash"}}, "read"},
		{"--tools names", []string{"bash"}, ToolSelection{Tools: []string{"read", "ls"}, ToolsSet: true}, "read,ls"},
		{"--no-tools", []string{"bash"}, ToolSelection{NoTools: true}, ""},
		{"nothing declared", nil, ToolSelection{}, "read,bash,edit,write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var store *session.Manager
			if c.declared == nil {
				store = session.InMemory(t.TempDir())
				if _, err := store.AppendMessage(provider.NewUserMessage("hi")); err != nil {
					t.Fatal(err)
				}
			} else {
				store = declaringStore(t, c.declared...)
			}
			available, _ := BuildTools(BuiltinToolNames, ToolOptions{Cwd: t.TempDir()})
			names, _ := SelectToolNames(c.sel)
			f := newFixture(t, nil, func(o *Options) {
				o.Store = store
				o.Tools = PickTools(available, names)
				o.Loadout = c.sel.Loadout(available)
			})
			if got := activeToolNames(f.s); got != c.want {
				t.Errorf("active tools %q, want %q", got, c.want)
			}
		})
	}
}
