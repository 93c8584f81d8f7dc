package config

import (
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// PackageEntries returns the "packages" entries of the global and the project file separately, each
// as written (a source string or an object with filters): pi resolves a local source against the
// directory of the file that names it and lets a project entry replace a global one. An untrusted
// project's entries are empty. Entries that are neither a string nor an object with a "source" are
// left out (Errors reports them).
func (m *SettingsManager) PackageEntries() (global, project []PackageSource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	global = packageEntriesOf(m.global)
	if !m.projectIgnored {
		project = packageEntriesOf(m.project)
	}
	return global, project
}

func packageEntriesOf(obj *jsonx.Object) []PackageSource {
	raw, ok := obj.Get("packages")
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []PackageSource
	for _, item := range items {
		var p PackageSource
		if json.Unmarshal(item, &p) == nil && p.Source != "" {
			out = append(out, p)
		}
	}
	return out
}

// UpdatePackages rewrites the "packages" list of the global file (project false) or of the
// project's .pi/settings.json (project true) under the file's lock: the file is re-read, edit gets
// the list's entries as written and returns the new list and whether it changed, and only that key
// is replaced, so every other field (and every entry edit keeps) stays as it was. A file holding
// invalid JSON is never overwritten: its error is returned.
func (m *SettingsManager) UpdatePackages(project bool, edit func(entries []json.RawMessage) ([]json.RawMessage, bool)) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	path := m.globalPath
	if project {
		path = m.projectPath
	}
	if path == "" {
		return false, fmt.Errorf("settings are in memory only")
	}
	changed := false
	err := withFileLock(path, func() error {
		current, err := loadSettingsFile(path)
		if err != nil {
			return err
		}
		var entries []json.RawMessage
		if raw, ok := current.Get("packages"); ok {
			if err := json.Unmarshal(raw, &entries); err != nil {
				return fmt.Errorf("settings %s: packages is not a list: %w", path, err)
			}
		}
		next, ok := edit(entries)
		if !ok {
			return nil
		}
		changed = true
		// Joined by hand: json.Marshal would escape <, > and & inside the entries, which pi does not.
		raw := []byte{'['}
		for i, e := range next {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = append(raw, e...)
		}
		current.Set("packages", append(raw, ']'))
		data, err := current.MarshalIndent("  ")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(path, data, 0o644); err != nil {
			return err
		}
		if project {
			m.project = current
		} else {
			m.global = current
		}
		m.remerge()
		return nil
	})
	return changed, err
}
