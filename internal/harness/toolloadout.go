package harness

import (
	"slices"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// ToolLoadout lets a session take the tool set its transcript declared, as pi 1.6 does
// (_restoreToolsFromTranscript): a resumed, switched-to or forked session continues with the tools
// its system messages declared, not the command line's; so does the branch /tree moves to.
type ToolLoadout struct {
	// Available are the tools that may become active, in the order the system prompt lists them.
	Available []loop.Tool
	// Restore says whether opening a session restores its tools: pi does unless --tools named the
	// tools (its +name/-name entries, Modifiers, apply to the restored set) or --no-tools was given.
	Restore   bool
	Modifiers []string
	// Allowed says whether a tool may be active at all (--tools names, --exclude-tools).
	Allowed func(name string) bool
	// Extra, when set, adds the tools that come and go while pi-go runs (MCP servers' tools), asked
	// for at each restore.
	Extra func() []loop.Tool
}

// Loadout is the ToolLoadout of this selection over the available tools (see SelectToolNames).
func (sel ToolSelection) Loadout(available []loop.Tool) *ToolLoadout {
	modifiers := sel.ToolsSet && slices.ContainsFunc(sel.Tools, config.IsToolModifier)
	l := &ToolLoadout{Available: available, Restore: (!sel.ToolsSet || modifiers) && !sel.NoTools}
	if modifiers {
		l.Modifiers = sel.Tools
	}
	excluded := toolNameMatcher(sel.Exclude)
	var listed func(string) bool
	if sel.ToolsSet && !modifiers {
		listed = toolNameMatcher(sel.Tools)
	}
	l.Allowed = func(name string) bool { return !excluded(name) && (listed == nil || listed(name)) }
	return l
}

// restoreTools makes the tools the branch's system messages declare (all of them, those before a
// compaction too) the active ones, with modifiers applied, keeping only allowed and available
// tools. A branch that declared none keeps the current tools.
func (s *Session) restoreTools(modifiers []string) {
	l := s.opts.Loadout
	if l == nil {
		return
	}
	var declared []provider.Message
	for _, e := range s.Store().Path("") {
		if e.Type != session.TypeMessage || e.Role != provider.RoleSystem {
			continue
		}
		if m, err := e.Message(); err == nil {
			declared = append(declared, m)
		}
	}
	if len(declared) == 0 {
		return
	}
	var names []string
	for _, d := range provider.CurrentTools(declared) {
		names = append(names, d.Name)
	}
	names = config.ApplyToolModifiers(names, modifiers)
	available := l.Available
	if l.Extra != nil {
		available = append(slices.Clone(available), l.Extra()...)
	}
	var active []loop.Tool
	for _, t := range available {
		if name := t.Definition().Name; slices.Contains(names, name) && (l.Allowed == nil || l.Allowed(name)) {
			active = append(active, t)
		}
	}
	s.agent.SetTools(active)
}

// PickTools returns the tools of available named in names, in the order of names.
func PickTools(available []loop.Tool, names []string) []loop.Tool {
	var out []loop.Tool
	for _, name := range names {
		if i := slices.IndexFunc(available, func(t loop.Tool) bool { return t.Definition().Name == name }); i >= 0 {
			out = append(out, available[i])
		}
	}
	return out
}
