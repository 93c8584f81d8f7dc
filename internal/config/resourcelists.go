package config

import "github.com/pi-go/pi-go/internal/jsonx"

// ResourceLists are the skills and prompts entries of one settings file: paths, relative to that
// file's directory (the agent directory, or the project's .pi), and filters (globs, !, +, -).
type ResourceLists struct {
	Skills     []string
	Prompts    []string
	Themes     []string
	Extensions []string
	// Packages are the packages entries' sources (a string entry, or an object entry's "source").
	Packages []string
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

func resourceListsOf(obj *jsonx.Object) ResourceLists {
	values, _ := toMap(obj)
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
	var packages []string
	list, _ := values["packages"].([]any)
	for _, v := range list {
		switch v := v.(type) {
		case string:
			packages = append(packages, v)
		case map[string]any:
			if s, ok := v["source"].(string); ok {
				packages = append(packages, s)
			}
		}
	}
	return ResourceLists{Skills: strs("skills"), Prompts: strs("prompts"), Themes: strs("themes"), Extensions: strs("extensions"), Packages: packages}
}
