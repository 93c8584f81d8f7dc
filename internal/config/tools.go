package config

import (
	"fmt"
	"strings"
)

// DefaultToolNames are the tools enabled at startup when neither defaultTools nor the command line
// changes them (pi's DEFAULT_TOOL_NAMES).
var DefaultToolNames = []string{"read", "bash", "edit", "write"}

// IsToolModifier reports whether a tool list entry is a +name or -name modifier.
func IsToolModifier(entry string) bool {
	return strings.HasPrefix(entry, "+") || strings.HasPrefix(entry, "-")
}

// ToolListError checks a --tools list as pi 1.6 does: either names and * patterns, or only
// +name/-name entries with exact names. It returns the problem or "".
func ToolListError(entries []string) string {
	modifiers := 0
	for _, e := range entries {
		if IsToolModifier(e) {
			modifiers++
		}
	}
	if modifiers == 0 {
		return ""
	}
	if modifiers < len(entries) {
		return "tool names cannot be mixed with +name or -name entries"
	}
	for _, e := range entries {
		if strings.Contains(e, "*") {
			return fmt.Sprintf("+name and -name entries take exact tool names, not patterns: %s", e)
		}
	}
	return ""
}

// ApplyToolModifiers applies the +name and -name entries of entries to base in order (+ adds a tool
// not yet there, - removes one); other entries are ignored. base is not changed.
func ApplyToolModifiers(base, entries []string) []string {
	tools := append([]string(nil), base...)
	for _, e := range entries {
		if !IsToolModifier(e) {
			continue
		}
		name := e[1:]
		i := indexOf(tools, name)
		switch {
		case e[0] == '+' && i < 0 && name != "":
			tools = append(tools, name)
		case e[0] == '-' && i >= 0:
			tools = append(tools[:i], tools[i+1:]...)
		}
	}
	return tools
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// DefaultTools is the resolved defaultTools selection (pi 1.6) and whether any settings file sets
// it: the plain names of the merged list (DefaultToolNames when it has only modifiers) with its
// +name/-name entries applied in order. An empty list disables every built-in tool.
func (s Settings) DefaultTools() ([]string, bool) {
	if s.DefaultToolsValue == nil {
		return nil, false
	}
	var plain []string
	for _, e := range s.DefaultToolsValue {
		if !IsToolModifier(e) {
			plain = append(plain, e)
		}
	}
	base := plain
	if len(plain) == 0 && len(s.DefaultToolsValue) > 0 {
		base = DefaultToolNames
	}
	tools := ApplyToolModifiers(base, s.DefaultToolsValue)
	if tools == nil {
		tools = []string{}
	}
	return tools, true
}
