// Package keymap is pi's keybindings: the actions of pi 1.6 with their default keys, the user's
// ~/.pi/agent/keybindings.json (namespaced ids, one key or a list, [] to disable, the super
// modifier, pi 0.x's old ids migrated), as bubbles key bindings the TUI matches key messages
// against and /hotkeys lists. It knows nothing of what an action does.
package keymap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Keymap is the bindings in effect. It is immutable once built.
type Keymap struct {
	bindings map[string]key.Binding
	keys     map[string][]string // the keys as written (pi's notation), for display
}

// Default is pi's default keymap.
func Default() *Keymap {
	km, _ := build(nil)
	return km
}

// build makes the keymap from the user's bindings (id → keys as written); problems name the id.
func build(user map[string][]string) (*Keymap, []string) {
	km := &Keymap{bindings: map[string]key.Binding{}, keys: map[string][]string{}}
	var problems []string
	for _, d := range Definitions {
		written := d.Defaults
		if u, ok := user[d.ID]; ok {
			written = u
		}
		names, shown, bad := resolveKeys(written)
		for _, err := range bad {
			problems = append(problems, fmt.Sprintf("%s: %v", d.ID, err))
		}
		if len(written) > 0 && len(names) == 0 {
			// Every key given is invalid: the action keeps its default rather than losing its keys.
			names, shown, _ = resolveKeys(d.Defaults)
		}
		km.keys[d.ID] = shown
		km.bindings[d.ID] = key.NewBinding(key.WithKeys(names...), key.WithHelp(strings.Join(shown, "/"), d.Help))
	}
	return km, problems
}

// resolveKeys names the keys as written; duplicates count once.
func resolveKeys(written []string) (names, shown []string, bad []error) {
	for _, w := range written {
		n, err := Name(w)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if slices.Contains(names, n) {
			continue
		}
		names = append(names, n)
		shown = append(shown, w)
		// Terminals send Backspace as 0x7f or 0x08, which Bubble Tea names ctrl+h; pi reads both.
		if alias, ok := strings.CutSuffix(n, "backspace"); ok && !strings.Contains(alias, "ctrl+") {
			names = append(names, alias+"ctrl+h")
		}
	}
	return names, shown, bad
}

// Binding is the bubbles binding of an action (disabled when it has no keys).
func (km *Keymap) Binding(id string) key.Binding { return km.bindings[id] }

// Matches reports whether k is one of the action's keys.
func (km *Keymap) Matches(k tea.KeyMsg, id string) bool {
	b, ok := km.bindings[id]
	return ok && len(b.Keys()) > 0 && key.Matches(k, b)
}

// Keys are the action's keys as keybindings.json writes them ("ctrl+o"); none when disabled.
func (km *Keymap) Keys(id string) []string { return slices.Clone(km.keys[id]) }

// Key is the action's first key ("" when disabled), for hints such as "ctrl+o to expand".
func (km *Keymap) Key(id string) string {
	if k := km.keys[id]; len(k) > 0 {
		return k[0]
	}
	return ""
}

// Load reads keybindings.json at path. A missing file is pi's defaults. Problems (invalid JSON, an
// unknown action, an invalid key) are returned, each naming the file and the action, and lose only
// what they concern: the other bindings apply, the bad one keeps its default. Old ids (pi 0.x's
// "expandTools") are read as their new ones (app.tools.expand), and migrated says so.
func Load(path string) (km *Keymap, problems []error, migrated []string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Default(), nil, nil
	}
	if err != nil {
		return Default(), []error{fmt.Errorf("keybindings %s: %w", path, err)}, nil
	}
	raw, err := decodeObject(data)
	if err != nil {
		return Default(), []error{fmt.Errorf("keybindings %s: %w", path, err)}, nil
	}
	raw, migrated = migrate(raw)
	known := map[string]bool{}
	for _, d := range Definitions {
		known[d.ID] = true
	}
	user := map[string][]string{}
	for _, id := range slices.Sorted(maps.Keys(raw)) {
		if id == "$schema" {
			continue
		}
		if !known[id] {
			problems = append(problems, fmt.Errorf("keybindings %s: %s: unknown action", path, id))
			continue
		}
		keys, err := keyList(raw[id])
		if err != nil {
			problems = append(problems, fmt.Errorf("keybindings %s: %s: %w", path, id, err))
			continue
		}
		user[id] = keys
	}
	km, bad := build(user)
	for _, p := range bad {
		problems = append(problems, fmt.Errorf("keybindings %s: %s", path, p))
	}
	return km, problems, migrated
}

func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if raw == nil {
		return nil, errors.New("not a JSON object")
	}
	return raw, nil
}

// keyList reads a binding: one key, or a list of keys ([] disables the action).
func keyList(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && list != nil {
		return list, nil
	}
	return nil, errors.New("must be a key (\"ctrl+x\") or a list of keys ([] disables the action)")
}

// migrate renames pi 0.x's ids to pi 1.6's; where the file has both, the new id wins (pi's rule).
func migrate(raw map[string]json.RawMessage) (map[string]json.RawMessage, []string) {
	out := map[string]json.RawMessage{}
	var renamed []string
	for _, id := range slices.Sorted(maps.Keys(raw)) {
		next, old := legacyIDs[id]
		if !old {
			out[id] = raw[id]
			continue
		}
		renamed = append(renamed, id+" → "+next)
		if _, both := raw[next]; !both {
			out[next] = raw[id]
		}
	}
	return out, renamed
}

// Migrate rewrites keybindings.json at path with pi 0.x's ids renamed, as pi 1.6 does at startup
// (its order: known actions first, in pi's order, then the others sorted; two-space indent). It
// reports the renames; a file without old ids, or one it cannot read, is left alone.
func Migrate(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	raw, err := decodeObject(data)
	if err != nil {
		return nil, nil
	}
	out, renamed := migrate(raw)
	if len(renamed) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteString("{")
	var order []string
	seen := map[string]bool{}
	for _, d := range Definitions {
		if _, ok := out[d.ID]; ok {
			order = append(order, d.ID)
			seen[d.ID] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(out)) {
		if !seen[id] {
			order = append(order, id)
		}
	}
	for i, id := range order {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(id)
		var compact, value bytes.Buffer
		if err := json.Compact(&compact, out[id]); err != nil {
			return nil, fmt.Errorf("keybindings %s: %w", path, err)
		}
		if err := json.Indent(&value, compact.Bytes(), "  ", "  "); err != nil {
			return nil, fmt.Errorf("keybindings %s: %w", path, err)
		}
		fmt.Fprintf(&b, "\n  %s: %s", name, value.Bytes())
	}
	b.WriteString("\n}\n")
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("keybindings %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), info.Mode().Perm()); err != nil {
		return nil, fmt.Errorf("keybindings %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("keybindings %s: %w", path, err)
	}
	return renamed, nil
}
