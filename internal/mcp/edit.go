package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// Edits of mcp.json change one server's entry and keep everything else as written: other servers,
// other top-level keys, key order and the file's indentation (pi's editMcpServers).

// ServerPatch changes a server's enabled state or exposure; nil fields are left alone.
type ServerPatch struct {
	Enabled  *bool
	Exposure *Exposure
}

// UpdateServer applies patch to name's entry in path. With override, a missing entry is added as a
// project override of a server defined elsewhere. Defaults are dropped from full entries but kept in
// overrides, which replace the user's values (pi's updateMcpServerConfig).
func UpdateServer(path, name string, patch ServerPatch, override bool) error {
	return editServers(path, func(servers *object) (bool, error) {
		raw, ok := servers.get(name)
		var entry *object
		switch {
		case ok && isObject(raw):
			var err error
			if entry, err = parseObject(raw); err != nil {
				return false, fmt.Errorf("%s: server %q: %w", path, name, err)
			}
		case !ok && override:
			entry = newObject()
		default:
			return false, fmt.Errorf("%s does not define MCP server %q", path, name)
		}
		keepDefaults := isOverride(entry)
		if patch.Enabled != nil {
			if *patch.Enabled && !keepDefaults {
				entry.delete("enabled")
			} else if err := entry.setValue("enabled", *patch.Enabled); err != nil {
				return false, err
			}
		}
		if patch.Exposure != nil {
			if *patch.Exposure == ExposureCodemode && !keepDefaults {
				entry.delete("exposure")
			} else if err := entry.setValue("exposure", *patch.Exposure); err != nil {
				return false, err
			}
		}
		data, err := entry.MarshalJSON()
		if err != nil {
			return false, err
		}
		servers.set(name, data)
		return true, nil
	})
}

// AddServer adds or replaces name's entry (a JSON object) in path, creating the file when missing.
// It reports whether an entry was replaced.
func AddServer(path, name string, entry json.RawMessage) (replaced bool, err error) {
	err = editServers(path, func(servers *object) (bool, error) {
		replaced = servers.has(name)
		servers.set(name, entry)
		return true, nil
	})
	return replaced, err
}

// RemoveServer removes name's entry from path and reports whether there was one.
func RemoveServer(path, name string) (removed bool, err error) {
	if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
		return false, nil
	}
	err = editServers(path, func(servers *object) (bool, error) {
		if !servers.has(name) {
			return false, nil
		}
		servers.delete(name)
		removed = true
		return true, nil
	})
	return removed, err
}

var indentRE = regexp.MustCompile(`(?m)^([ \t]+)\S`)

// editServers reads path (empty when missing), lets edit change its mcpServers and writes the file
// back when edit reports a change, through a temporary file so a crash leaves the old file whole.
func editServers(path string, edit func(servers *object) (bool, error)) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	top := newObject()
	if len(bytes.TrimSpace(data)) > 0 || err == nil {
		if top, err = parseObject(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	servers := newObject()
	if raw, ok := top.get("mcpServers"); ok {
		if !isObject(raw) {
			return fmt.Errorf(`%s: expected an object with an "mcpServers" object`, path)
		}
		if servers, err = parseObject(raw); err != nil {
			return fmt.Errorf("%s: mcpServers: %w", path, err)
		}
	}
	changed, err := edit(servers)
	if err != nil || !changed {
		return err
	}
	encoded, err := servers.MarshalJSON()
	if err != nil {
		return err
	}
	top.set("mcpServers", encoded)
	indent := "  "
	if m := indentRE.FindSubmatch(data); m != nil {
		indent = string(m[1])
	}
	out, err := top.indented(indent)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp.json.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	_ = os.Chmod(tmp.Name(), mode)
	return os.Rename(tmp.Name(), path)
}
