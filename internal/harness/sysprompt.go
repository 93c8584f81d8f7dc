package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ContextFile is one AGENTS.md / CLAUDE.md that goes into the system prompt.
type ContextFile struct {
	Path    string
	Content string
}

// contextFileNames are tried in this order; the first one found in a directory wins (pi 1.6 puts
// AGENTS.override.md first).
var contextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// builtinToolPrompts are the one-liners and guidelines pi 0.73.1 gives the model for its built-in tools.
var builtinToolPrompts = map[string]struct {
	snippet    string
	guidelines []string
}{
	"read": {"Read file contents", []string{"Use read to examine files instead of cat or sed."}},
	"bash": {"Execute bash commands (ls, grep, find, etc.)", nil},
	"edit": {"Make precise file edits with exact text replacement, including multiple disjoint edits in one call", []string{
		"Use edit for precise changes (edits[].oldText must match exactly)",
		"When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls",
		"Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
		"Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
	}},
	"write": {"Create or overwrite files", []string{"Use write only for new files or complete rewrites."}},
	"grep":  {"Search file contents for patterns (respects .gitignore)", nil},
	"find":  {"Find files by glob pattern (respects .gitignore)", nil},
	"ls":    {"List directory contents", nil},
}

// SystemPromptOptions are the inputs of the system prompt.
type SystemPromptOptions struct {
	Cwd string
	// CustomPrompt replaces the default prompt (from --system-prompt or SYSTEM.md); empty: default.
	CustomPrompt string
	// AppendPrompts come from --append-system-prompt or APPEND_SYSTEM.md, joined by blank lines.
	AppendPrompts []string
	// Tools are the active tool names, in order.
	Tools        []string
	ContextFiles []ContextFile
	// Now is the clock for the date line (zero: time.Now()).
	Now time.Time
}

// BuildSystemPrompt composes the system prompt as pi does (pi-reference §3.10).
func BuildSystemPrompt(o SystemPromptOptions) string {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	var b strings.Builder
	if o.CustomPrompt != "" {
		b.WriteString(o.CustomPrompt)
	} else {
		b.WriteString(defaultPrompt(o.Tools))
	}
	if len(o.AppendPrompts) > 0 {
		b.WriteString("\n\n")
		b.WriteString(strings.Join(o.AppendPrompts, "\n\n"))
	}
	if len(o.ContextFiles) > 0 {
		b.WriteString("\n\n# Project Context\n\n")
		b.WriteString("Project-specific instructions and guidelines:\n\n")
		for _, f := range o.ContextFiles {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", f.Path, f.Content)
		}
	}
	b.WriteString("\nCurrent date: ")
	b.WriteString(now.Format("2006-01-02"))
	b.WriteString("\nCurrent working directory: ")
	b.WriteString(filepath.ToSlash(o.Cwd))
	return b.String()
}

func defaultPrompt(tools []string) string {
	var toolLines []string
	has := map[string]bool{}
	for _, name := range tools {
		has[name] = true
		if p, ok := builtinToolPrompts[name]; ok {
			toolLines = append(toolLines, "- "+name+": "+p.snippet)
		}
	}
	toolsList := "(none)"
	if len(toolLines) > 0 {
		toolsList = strings.Join(toolLines, "\n")
	}
	var guidelines []string
	seen := map[string]bool{}
	add := func(g string) {
		g = strings.TrimSpace(g)
		if g == "" || seen[g] {
			return
		}
		seen[g] = true
		guidelines = append(guidelines, "- "+g)
	}
	switch {
	case has["bash"] && !has["grep"] && !has["find"] && !has["ls"]:
		add("Use bash for file operations like ls, rg, find")
	case has["bash"]:
		add("Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)")
	}
	for _, name := range tools {
		for _, g := range builtinToolPrompts[name].guidelines {
			add(g)
		}
	}
	add("Be concise in your responses")
	add("Show file paths clearly when working with files")
	return "You are an expert coding assistant operating inside pi, a coding agent harness. " +
		"You help users by reading files, executing commands, editing code, and writing new files.\n\n" +
		"Available tools:\n" + toolsList + "\n\n" +
		"In addition to the tools above, you may have access to other custom tools depending on the project.\n\n" +
		"Guidelines:\n" + strings.Join(guidelines, "\n")
}

// LoadContextFiles finds AGENTS.override.md, AGENTS.md or CLAUDE.md in the agent dir, then in every
// directory from the filesystem root down to cwd (ancestors first), skipping duplicates and, in a
// linked git worktree nested in its main checkout, the main checkout's file that the worktree's own
// copy shadows (pi 1.6). Unreadable files are reported and skipped.
func LoadContextFiles(agentDir, cwd string) ([]ContextFile, []error) {
	var files []ContextFile
	var errs []error
	seen := map[string]bool{}
	if f, err := contextFileIn(agentDir); err != nil {
		errs = append(errs, err)
	} else if f != nil {
		files = append(files, *f)
		seen[f.Path] = true
	}
	var chain []ContextFile
	shadowed := shadowedContextFile(cwd)
	dir := filepath.Clean(cwd)
	for {
		f, err := contextFileIn(dir)
		if err != nil {
			errs = append(errs, err)
		} else if f != nil && !seen[f.Path] && !isShadowed(dir, f.Path, shadowed) {
			chain = append([]ContextFile{*f}, chain...)
			seen[f.Path] = true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return append(files, chain...), errs
}

func contextFileIn(dir string) (*ContextFile, error) {
	if dir == "" {
		return nil, nil
	}
	for _, name := range contextFileNames {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err == nil {
			return &ContextFile{Path: p, Content: string(data)}, nil
		}
		if errors.Is(err, fs.ErrNotExist) || isDir(p) {
			continue
		}
		return nil, fmt.Errorf("could not read %s: %w", p, err)
	}
	return nil, nil
}

func isDir(p string) bool { info, err := os.Stat(p); return err == nil && info.IsDir() }

// ResolvePromptText returns the contents of input when it names an existing file, else input itself
// (pi's rule for --system-prompt and --append-system-prompt).
func ResolvePromptText(input string) (string, error) {
	if input == "" {
		return "", nil
	}
	if info, err := os.Stat(input); err == nil && !info.IsDir() {
		data, err := os.ReadFile(input)
		if err != nil {
			return "", fmt.Errorf("could not read %s: %w", input, err)
		}
		return string(data), nil
	}
	return input, nil
}

// DiscoverPromptFiles finds SYSTEM.md and APPEND_SYSTEM.md, project (.pi/) first, then global; the
// project's only when the project is trusted (pi 1.6).
func DiscoverPromptFiles(agentDir, cwd string, projectTrusted bool) (systemFile, appendFile string) {
	dirs := []string{agentDir}
	if projectTrusted {
		dirs = []string{filepath.Join(cwd, ".pi"), agentDir}
	}
	pick := func(name string) string {
		for _, dir := range dirs {
			p := filepath.Join(dir, name)
			if info, err := os.Stat(p); err == nil && !info.IsDir() {
				return p
			}
		}
		return ""
	}
	return pick("SYSTEM.md"), pick("APPEND_SYSTEM.md")
}
