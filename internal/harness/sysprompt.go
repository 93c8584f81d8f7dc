package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// ContextFile is one AGENTS.md / CLAUDE.md that goes into the system prompt.
type ContextFile struct {
	Path    string
	Content string
}

// contextFileNames are tried in this order; the first one found in a directory wins (pi 1.6 puts
// AGENTS.override.md first).
var contextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// builtinToolPrompts are the one-liners and rules pi 1.6 gives the model for its built-in tools.
var builtinToolPrompts = map[string]ToolPrompt{
	"read": {"Read file contents", []string{"Use read to examine files instead of cat or sed."}},
	"bash": {"Execute bash commands (ls, grep, find, etc.)", []string{
		"You can inspect PI_* environment variables for current model and session details.",
	}},
	"edit": {"Make precise file edits with exact text replacement, including multiple disjoint edits in one call", []string{
		"Use edit for targeted changes. Batch changes to one file in a single call.",
		"Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.",
	}},
	"write": {"Create or overwrite files", []string{"Use write only for new files or complete rewrites."}},
	"grep":  {"Search file contents for patterns (respects .gitignore)", nil},
	"find":  {"Find files by glob pattern (respects .gitignore)", nil},
	"ls":    {"List directory contents", nil},
}

// ToolPrompt is what a tool adds to the system prompt: a line in <tools> (none without a snippet) and
// rules in <rules>.
type ToolPrompt struct {
	Snippet    string
	Guidelines []string
}

// PromptedTool is a tool that brings its own prompt lines (an extension's promptSnippet and
// promptGuidelines). As pi 1.6 takes a tool's lines from its definition, they replace the built-in
// tool's of the same name, even when empty.
type PromptedTool interface {
	PromptLines() (snippet string, guidelines []string)
}

// normalizeToolPrompt is pi 1.6's normalisation of a definition's lines: the snippet on one line with
// its whitespace collapsed, the guidelines trimmed, blanks and repeats dropped.
func normalizeToolPrompt(p ToolPrompt) ToolPrompt {
	out := ToolPrompt{Snippet: strings.Join(strings.Fields(p.Snippet), " ")}
	for _, g := range p.Guidelines {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(out.Guidelines, g) {
			out.Guidelines = append(out.Guidelines, g)
		}
	}
	return out
}

func (p ToolPrompt) equal(q ToolPrompt) bool {
	return p.Snippet == q.Snippet && slices.Equal(p.Guidelines, q.Guidelines)
}

// Skill is a skill as the <skills> section lists it.
type Skill struct {
	Name        string
	Description string
	// FilePath is the SKILL.md file the model reads.
	FilePath string
	// DisableModelInvocation keeps the skill out of the prompt (only the user invokes it).
	DisableModelInvocation bool
}

// SystemPromptOptions are the inputs of the system prompt.
type SystemPromptOptions struct {
	Cwd string
	// CustomPrompt replaces the preamble and the tool, rule and docs sections (--system-prompt or
	// SYSTEM.md); empty: pi's default.
	CustomPrompt string
	// AppendPrompts come from --append-system-prompt or APPEND_SYSTEM.md; joined by blank lines they
	// are the <addendum> section.
	AppendPrompts []string
	// Tools are the active tool names, in order.
	Tools []string
	// ToolPrompts add or replace the prompt lines of tools by name (the built-in tools have theirs).
	ToolPrompts map[string]ToolPrompt
	// PromptGuidelines are rules after the tools' in <rules> (pi's promptGuidelines, which only
	// before_agent_start handlers set).
	PromptGuidelines []string
	ContextFiles     []ContextFile
	Skills           []Skill
	// Sections are sections other parts add (pi's systemPromptOptions.sections, where MCP puts
	// mcp_servers), Text unwrapped: each replaces pi's section of its name or follows pi's own, in
	// order; empty ones are left out.
	Sections []provider.PromptSection
}

// Section names of pi 1.6's structured prompt, in the order they appear.
const (
	SectionPreamble       = "preamble"
	SectionTools          = "tools"
	SectionRules          = "rules"
	SectionAddendum       = "addendum"
	SectionProjectContext = "project_context"
	SectionSkills         = "skills"
	SectionCwd            = "cwd"
)

// defaultPreamble opens pi 1.6's default prompt.
const defaultPreamble = "You are a coding assistant running inside pi, a coding agent harness. " +
	"Help users inspect files, run commands, and modify code."

// BuildSystemPromptSections composes pi 1.6's structured system prompt (its buildSystemPromptSections):
// the preamble as it is, every other section wrapped in <name>…</name>. pi's <docs> section, which
// points the model at pi's own installed documentation, is left out: pi-go installs none.
func BuildSystemPromptSections(o SystemPromptOptions) []provider.PromptSection {
	var out []provider.PromptSection
	add := func(name, content string) {
		out = append(out, provider.PromptSection{Name: name, Text: "<" + name + ">\n" + content + "\n</" + name + ">"})
	}
	if o.CustomPrompt != "" {
		out = append(out, provider.PromptSection{Name: SectionPreamble, Text: o.CustomPrompt})
	} else {
		out = append(out, provider.PromptSection{Name: SectionPreamble, Text: defaultPreamble})
		var lines []string
		for _, name := range o.Tools {
			if p := o.toolPrompt(name); p.Snippet != "" {
				lines = append(lines, "- "+name+": "+p.Snippet)
			}
		}
		tools := "(none)"
		if len(lines) > 0 {
			tools = strings.Join(lines, "\n")
		}
		add(SectionTools, tools+"\n\nAdditional tools may be available.")
		add(SectionRules, o.rules())
	}
	if len(o.AppendPrompts) > 0 {
		if text := strings.Join(o.AppendPrompts, "\n\n"); text != "" {
			add(SectionAddendum, text)
		}
	}
	if len(o.ContextFiles) > 0 {
		parts := []string{"Project-specific instructions and guidelines:"}
		for _, f := range o.ContextFiles {
			parts = append(parts, `<project_instructions path="`+f.Path+`">`+"\n"+f.Content+"\n</project_instructions>")
		}
		add(SectionProjectContext, strings.Join(parts, "\n\n"))
	}
	if text := o.skillsText(); text != "" {
		add(SectionSkills, text)
	}
	add(SectionCwd, strings.ReplaceAll(o.Cwd, `\`, "/"))
	for _, cs := range o.Sections {
		if cs.Text == "" || cs.Name == SectionPreamble {
			continue
		}
		text := "<" + cs.Name + ">\n" + cs.Text + "\n</" + cs.Name + ">"
		if i := slices.IndexFunc(out, func(p provider.PromptSection) bool { return p.Name == cs.Name }); i >= 0 {
			out[i].Text = text
			continue
		}
		out = append(out, provider.PromptSection{Name: cs.Name, Text: text})
	}
	return out
}

// BuildSystemPrompt is the prompt text of BuildSystemPromptSections, as a request sends it.
func BuildSystemPrompt(o SystemPromptOptions) string {
	return provider.SystemMessageText(&provider.SystemMessage{Sections: BuildSystemPromptSections(o)})
}

func (o *SystemPromptOptions) toolPrompt(name string) ToolPrompt {
	if p, ok := o.ToolPrompts[name]; ok {
		return p
	}
	return builtinToolPrompts[name]
}

// rules is the <rules> list: a shell hint when only a shell can explore files, each tool's rules in
// tool order, then the two general ones; duplicates and blanks dropped.
func (o *SystemPromptOptions) rules() string {
	var rules []string
	seen := map[string]bool{}
	add := func(r string) {
		r = strings.TrimSpace(r)
		if r == "" || seen[r] {
			return
		}
		seen[r] = true
		rules = append(rules, "- "+r)
	}
	has := func(name string) bool { return slices.Contains(o.Tools, name) }
	hasBash, hasPowerShell := has("bash"), has("powershell")
	if (hasBash || hasPowerShell) && !has("grep") && !has("find") && !has("ls") {
		switch {
		case hasBash && hasPowerShell:
			add("Use bash or PowerShell for file operations like listing, searching, and finding files")
		case hasPowerShell:
			add("Use PowerShell for file operations like listing, searching, and finding files")
		default:
			add("Use bash for file operations like ls, rg, find")
		}
	}
	for _, name := range o.Tools {
		for _, r := range o.toolPrompt(name).Guidelines {
			add(r)
		}
	}
	for _, r := range o.PromptGuidelines {
		add(r)
	}
	add("Be concise in your responses")
	add("Show file paths clearly when working with files")
	return strings.Join(rules, "\n")
}

// skillsText lists the skills the model may load, naming the tool that reads their files (read, else
// bash); without either tool there is no skills section.
func (o *SystemPromptOptions) skillsText() string {
	reader := ""
	for _, name := range []string{"read", "bash"} {
		if slices.Contains(o.Tools, name) {
			reader = name
			break
		}
	}
	if reader == "" {
		return ""
	}
	var visible []Skill
	for _, sk := range o.Skills {
		if !sk.DisableModelInvocation {
			visible = append(visible, sk)
		}
	}
	if len(visible) == 0 {
		return ""
	}
	how := "Use the read tool to load a skill's file when the task matches its description."
	if reader == "bash" {
		how = "Use bash to load a skill's file when the task matches its description."
	}
	lines := []string{
		"The following skills provide specialized instructions for specific tasks.",
		how,
		"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.",
		"",
		"<available_skills>",
	}
	for _, sk := range visible {
		lines = append(lines, "  <skill>",
			"    <name>"+escapeXML(sk.Name)+"</name>",
			"    <description>"+escapeXML(sk.Description)+"</description>",
			"    <location>"+escapeXML(sk.FilePath)+"</location>",
			"  </skill>")
	}
	lines = append(lines, "</available_skills>")
	return strings.Join(lines, "\n")
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }

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

// ResolvePromptText returns the contents of input when it names an existing file (without a UTF-8
// byte order mark, as pi reads it), else input itself (pi's rule for --system-prompt,
// --append-system-prompt, SYSTEM.md and APPEND_SYSTEM.md).
func ResolvePromptText(input string) (string, error) {
	if input == "" {
		return "", nil
	}
	if info, err := os.Stat(input); err == nil && !info.IsDir() {
		data, err := os.ReadFile(input)
		if err != nil {
			return "", fmt.Errorf("could not read %s: %w", input, err)
		}
		return strings.TrimPrefix(string(data), "\uFEFF"), nil
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
