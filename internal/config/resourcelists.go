package config

// ResourceLists are the skills and prompts entries of one settings file: paths, relative to that
// file's directory (the agent directory, or the project's .pi), and filters (globs, !, +, -).
type ResourceLists struct {
	Skills     []string
	Prompts    []string
	Extensions []string
}

// ResourceLists returns the entries of the global and the project file separately (pi resolves each
// against its own directory and ranks the project's first). An untrusted project's are empty.
func (m *SettingsManager) ResourceLists() (global, project ResourceLists) {
	m.mu.Lock()
	defer m.mu.Unlock()
	global = resourceListsOf(m.global)
	if !m.projectIgnored {
		project = resourceListsOf(m.project)
	}
	return global, project
}

func resourceListsOf(obj *orderedObject) ResourceLists {
	values, _ := obj.toMap()
	strs := func(key string) []string {
		list, _ := values[key].([]any)
		var out []string
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return ResourceLists{Skills: strs("skills"), Prompts: strs("prompts"), Extensions: strs("extensions")}
}
