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

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
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
	return editServers(path, func(servers *jsonx.Object) (bool, error) {
		raw, ok := servers.Get(name)
		var entry *jsonx.Object
		switch {
		case ok && jsonx.IsObject(raw):
			var err error
			if entry, err = jsonx.ParseObject(raw); err != nil {
				return false, fmt.Errorf("%s: server %q: %w", path, name, err)
			}
		case !ok && override:
			entry = jsonx.NewObject()
		default:
			return false, fmt.Errorf("%s does not define MCP server %q", path, name)
		}
		keepDefaults := isOverride(entry)
		if patch.Enabled != nil {
			if *patch.Enabled && !keepDefaults {
				entry.Delete("enabled")
			} else if err := setJS(entry, "enabled", *patch.Enabled); err != nil {
				return false, err
			}
		}
		if patch.Exposure != nil {
			if *patch.Exposure == ExposureCodemode && !keepDefaults {
				entry.Delete("exposure")
			} else if err := setJS(entry, "exposure", *patch.Exposure); err != nil {
				return false, err
			}
		}
		data, err := entry.MarshalJSON()
		if err != nil {
			return false, err
		}
		servers.Set(name, data)
		return true, nil
	})
}

// AddServer adds or replaces name's entry (a JSON object) in path, creating the file when missing.
// It reports whether an entry was replaced.
func AddServer(path, name string, entry json.RawMessage) (replaced bool, err error) {
	err = editServers(path, func(servers *jsonx.Object) (bool, error) {
		replaced = servers.Has(name)
		servers.Set(name, entry)
		return true, nil
	})
	return replaced, err
}

// RemoveServer removes name's entry from path and reports whether there was one.
func RemoveServer(path, name string) (removed bool, err error) {
	if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
		return false, nil
	}
	err = editServers(path, func(servers *jsonx.Object) (bool, error) {
		if !servers.Has(name) {
			return false, nil
		}
		servers.Delete(name)
		removed = true
		return true, nil
	})
	return removed, err
}

// setJS sets key to v written as JSON.stringify writes it.
func setJS(o *jsonx.Object, key string, v any) error {
	data, err := provider.MarshalJS(v)
	if err != nil {
		return err
	}
	o.Set(key, data)
	return nil
}

var indentRE = regexp.MustCompile(`(?m)^([ \t]+)\S`)

// editServers reads path (empty when missing), lets edit change its mcpServers and writes the file
// back when edit reports a change, through a temporary file so a crash leaves the old file whole.
func editServers(path string, edit func(servers *jsonx.Object) (bool, error)) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	top := jsonx.NewObject()
	if len(bytes.TrimSpace(data)) > 0 || err == nil {
		if top, err = jsonx.ParseObject(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	servers := jsonx.NewObject()
	if raw, ok := top.Get("mcpServers"); ok {
		if !jsonx.IsObject(raw) {
			return fmt.Errorf(`%s: expected an object with an "mcpServers" object`, path)
		}
		if servers, err = jsonx.ParseObject(raw); err != nil {
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
	top.Set("mcpServers", encoded)
	indent := "  "
	if m := indentRE.FindSubmatch(data); m != nil {
		indent = string(m[1])
	}
	out, err := top.MarshalIndent(indent)
	if err != nil {
		return err
	}
	out = append(out, '\n') // pi ends mcp.json with a newline
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
