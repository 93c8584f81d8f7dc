package harness

import (
	"slices"

	"github.com/pi-go/pi-go/internal/loop"
)

// extToolSet remembers which tools came from extensions, so that a later registration can tell a
// new tool from a replaced one and a dropped one from a built-in (under Session.mu).
type extToolSet struct {
	names map[string]bool
	// shadowed are the tools an extension's tool of the same name replaced: they come back when
	// the extension's tool goes (pi rebuilds its registry from the built-ins on each refresh).
	shadowed map[string]loop.Tool
}

// SyncExtensionTools makes tools the extensions' whole tool set, as pi's refresh of its tool
// registry after a registerTool: a name not registered before becomes active (unless --tools or
// --exclude-tools rule it out); a re-registered name replaces its tool and keeps it active or not;
// a name no longer registered goes, giving back the built-in tool it had replaced. The next request
// declares the result, with the tools' prompt lines.
func (s *Session) SyncExtensionTools(tools []loop.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := &s.extTools
	if set.shadowed == nil {
		set.shadowed = map[string]loop.Tool{}
	}
	allowed := func(string) bool { return true }
	l := s.opts.Loadout
	if l != nil && l.Allowed != nil {
		allowed = l.Allowed
	}
	registered := slices.Clone(s.opts.Tools)
	var available []loop.Tool
	if l != nil {
		available = slices.Clone(l.Available)
	}
	active := slices.Clone(s.agent.Tools())
	next := map[string]bool{}
	for _, t := range tools {
		name := t.Definition().Name
		next[name] = true
		if !set.names[name] {
			if old := findTool(registered, name); old != nil {
				set.shadowed[name] = old
			} else if old := findTool(available, name); old != nil {
				set.shadowed[name] = old
			}
		}
		wasKnown := set.names[name] || set.shadowed[name] != nil
		registered = putTool(registered, t, true)
		available = putTool(available, t, l != nil)
		// A replaced tool keeps its place, active or not; a new one is activated.
		active = putTool(active, t, !wasKnown && allowed(name))
	}
	for name := range set.names {
		if next[name] {
			continue
		}
		if old := set.shadowed[name]; old != nil {
			delete(set.shadowed, name)
			registered = putTool(registered, old, false)
			available = putTool(available, old, false)
			active = putTool(active, old, false)
			continue
		}
		registered = dropTool(registered, name)
		available = dropTool(available, name)
		active = dropTool(active, name)
	}
	set.names = next
	s.opts.Tools = registered
	if l != nil {
		l.Available = available
	}
	s.agent.SetTools(active)
}

func findTool(list []loop.Tool, name string) loop.Tool {
	if i := slices.IndexFunc(list, func(t loop.Tool) bool { return t.Definition().Name == name }); i >= 0 {
		return list[i]
	}
	return nil
}

// putTool replaces the tool of t's name in list, or appends t when add says so.
func putTool(list []loop.Tool, t loop.Tool, add bool) []loop.Tool {
	name := t.Definition().Name
	if i := slices.IndexFunc(list, func(o loop.Tool) bool { return o.Definition().Name == name }); i >= 0 {
		list[i] = t
		return list
	}
	if add {
		return append(list, t)
	}
	return list
}

func dropTool(list []loop.Tool, name string) []loop.Tool {
	return slices.DeleteFunc(list, func(t loop.Tool) bool { return t.Definition().Name == name })
}
