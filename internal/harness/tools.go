package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// BuiltinToolNames lists every built-in tool in pi's order.
var BuiltinToolNames = []string{"read", "bash", "edit", "write", "grep", "find", "ls"}

// DefaultToolNames are the tools active when neither --tools nor defaultTools says otherwise.
var DefaultToolNames = config.DefaultToolNames

// SessionEnv is what pi 1.6 tells the bash tool's commands about the session, resolved at each
// command: PI_SESSION_ID, PI_SESSION_FILE (only for a session saved to a file), PI_PROVIDER and
// PI_MODEL (with a model), PI_REASONING_LEVEL (the level in effect for the model).
func (s *Session) SessionEnv() []string {
	store := s.Store()
	env := []string{"PI_SESSION_ID=" + store.SessionID()}
	if f := store.SessionFile(); f != "" {
		env = append(env, "PI_SESSION_FILE="+f)
	}
	m := s.Model()
	if m != nil {
		env = append(env, "PI_PROVIDER="+m.Provider, "PI_MODEL="+m.ID)
	}
	if level := s.ThinkingLevel(); level != "" {
		env = append(env, "PI_REASONING_LEVEL="+string(provider.ClampThinkingLevel(m, level)))
	}
	return env
}

// ToolSelection is what decides the active built-in tools: the command line and defaultTools.
type ToolSelection struct {
	// Defaults is the resolved defaultTools setting, or nil when no settings file sets it.
	Defaults []string
	// NoTools is --no-tools or --no-builtin-tools (pi-go's tools are all built in).
	NoTools bool
	// Tools is --tools: names and * patterns, or only +name/-name entries (ToolsSet: it was given).
	Tools    []string
	ToolsSet bool
	// Exclude is --exclude-tools: names and * patterns.
	Exclude []string
}

// SelectToolNames resolves the active tools as pi 1.6 does (createAgentSession and the session's
// tool registry): the defaults (defaultTools, else DefaultToolNames; none with --no-tools), replaced
// by --tools names or changed by its +name/-name entries, without what --exclude-tools matches; every
// built-in tool a --tools name or pattern matches is active too, after the listed ones, in pi's order.
// Names and patterns that match no tool are returned as warnings (pi ignores them silently).
func SelectToolNames(sel ToolSelection) ([]string, []string) {
	defaults := sel.Defaults
	if defaults == nil {
		defaults = DefaultToolNames
	}
	if sel.NoTools {
		defaults = nil
	}
	var selected []string
	var allowed func(string) bool
	modifiers := sel.ToolsSet && slices.ContainsFunc(sel.Tools, config.IsToolModifier)
	switch {
	case modifiers:
		selected = config.ApplyToolModifiers(defaults, sel.Tools)
		if sel.NoTools {
			allowed = toolNameMatcher(selected)
		}
	case sel.ToolsSet:
		selected = sel.Tools
		allowed = toolNameMatcher(sel.Tools)
	default:
		selected = defaults
		if sel.NoTools {
			allowed = toolNameMatcher(nil)
		}
	}
	excluded := toolNameMatcher(sel.Exclude)
	permitted := func(name string) bool { return !excluded(name) && (allowed == nil || allowed(name)) }
	var names []string
	for _, name := range selected {
		if slices.Contains(BuiltinToolNames, name) && permitted(name) {
			names = append(names, name)
		}
	}
	if allowed != nil {
		for _, name := range BuiltinToolNames {
			if allowed(name) && permitted(name) {
				names = append(names, name)
			}
		}
	}
	names = dedupe(names)
	var warnings []string
	entries := sel.Tools
	if modifiers {
		entries = nil
		for _, e := range sel.Tools {
			entries = append(entries, e[1:])
		}
	}
	for _, e := range append(slices.Clone(entries), sel.Exclude...) {
		if !slices.ContainsFunc(BuiltinToolNames, toolNameMatcher([]string{e})) {
			warnings = append(warnings, fmt.Sprintf("Unknown tool %q (available: %s)", e, strings.Join(BuiltinToolNames, ", ")))
		}
	}
	return names, warnings
}

// dedupe keeps the first of each name.
func dedupe(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// toolNameMatcher matches a tool name against entries, each an exact name or a pattern where * is
// any run of characters (pi's createToolNameMatcher).
func toolNameMatcher(entries []string) func(string) bool {
	return func(name string) bool {
		for _, e := range entries {
			if e == name || strings.Contains(e, "*") && matchStar(e, name) {
				return true
			}
		}
		return false
	}
}

// matchStar reports whether name matches pattern as a whole, * matching any characters.
func matchStar(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := len(parts) - 1
	for _, p := range parts[1:last] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, parts[last]) && len(name) >= len(parts[last])
}

// ToolOptions configure the built-in tools.
type ToolOptions struct {
	Cwd                string
	ShellPath          string
	ShellCommandPrefix string
	BinDir             string
	DisableImageResize bool
	// OutputDir receives the bash tool's full-output files (nil: the system temp directory).
	OutputDir *shell.OutputDir
	// ImagesUnsupportedBy is the current model's id when it takes no images, else "" (nil: every
	// model takes images).
	ImagesUnsupportedBy func() string
	// SessionEnv gives the bash tool's commands the session's variables (see shell.Options).
	SessionEnv func() []string
}

// BuildTools creates the named built-in tools in the given order. Unknown names are returned as
// warnings (pi drops them with a warning).
func BuildTools(names []string, o ToolOptions) ([]loop.Tool, []string) {
	mutations := tools.NewMutationQueue()
	var out []loop.Tool
	var warnings []string
	seen := map[string]bool{}
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		switch name {
		case "read":
			out = append(out, tools.NewRead(o.Cwd, tools.ReadOptions{
				DisableImageResize:  o.DisableImageResize,
				ImagesUnsupportedBy: o.ImagesUnsupportedBy,
			}))
		case "bash":
			out = append(out, tools.NewBash(o.Cwd, shell.Options{
				ShellPath:     o.ShellPath,
				CommandPrefix: o.ShellCommandPrefix,
				BinDir:        o.BinDir,
				OutputDir:     o.OutputDir,
				SessionEnv:    o.SessionEnv,
			}))
		case "edit":
			out = append(out, tools.NewEdit(o.Cwd, tools.EditOptions{Mutations: mutations}))
		case "write":
			out = append(out, tools.NewWrite(o.Cwd, tools.WriteOptions{Mutations: mutations}))
		case "grep":
			out = append(out, tools.NewGrep(o.Cwd))
		case "find":
			out = append(out, tools.NewFind(o.Cwd))
		case "ls":
			out = append(out, tools.NewLs(o.Cwd))
		default:
			warnings = append(warnings, fmt.Sprintf("Unknown tool %q (available: %s)", name, strings.Join(BuiltinToolNames, ", ")))
		}
	}
	return out, warnings
}
