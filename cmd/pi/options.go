package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/demo"
	"github.com/pi-go/pi-go/internal/session"
)

// Options is everything the command line says, parsed but not yet acted on.
type Options struct {
	// Extensions are -e/--extension paths; NoExtensions is --no-extensions (only -e paths load);
	// ExtensionFlags are the flags pi-go does not know, handed to extensions' registerFlag.
	Extensions         []string
	NoExtensions       bool
	ExtensionFlags     map[string]any
	Provider           string
	Model              string
	APIKey             string
	BaseURL            string
	SystemPrompt       string
	AppendSystemPrompt []string
	Thinking           string
	TUIMode            string // --tui-mode: fullscreen or regular ("" settings' tuiMode)
	Models             []string
	Tools              []string
	ToolsSet           bool
	ExcludeTools       []string
	NoTools            bool
	NoBuiltinTools     bool
	NoMCP              bool
	Print              bool
	Mode               string
	Continue           bool
	Resume             bool
	Session            string
	SessionID          string
	SessionDir         string
	// Name is --name (NameSet: it was given), the session's display name.
	Name       string
	NameSet    bool
	NoSession  bool
	Fork       string
	ListModels *string
	// Export is --export's session file: it is written as HTML (to the first message, when given)
	// and pi exits.
	Export         string
	NoContextFiles bool
	// Skills and PromptTemplates are --skill and --prompt-template paths; NoSkills and
	// NoPromptTemplates turn discovery off (the paths given still load).
	Skills            []string
	PromptTemplates   []string
	NoSkills          bool
	NoPromptTemplates bool
	// Approve is --approve (true) or --no-approve (false), the last one given; nil: neither.
	Approve *bool
	Verbose bool
	Offline bool
	Version bool
	// Rewind is --rewind: the checkpoint to restore the session's files to (pi-go); Force is --force.
	Rewind string
	Force  bool

	// Messages are the positional prompts; FileArgs the @file arguments (without "@").
	Messages []string
	FileArgs []string
	// Warnings are command-line problems pi reports and goes on (an invalid --thinking).
	Warnings []string
}

// shortAliases maps pi's multi-letter single-dash aliases, which pflag cannot express, to long flags.
var shortAliases = map[string]string{
	"-nt":  "--no-tools",
	"-nbt": "--no-builtin-tools",
	"-nc":  "--no-context-files",
	"-xt":  "--exclude-tools",
	"-na":  "--no-approve",
	"-ns":  "--no-skills",
	"-np":  "--no-prompt-templates",
}

// normalizeArgs rewrites pi's argument forms that pflag does not know: the multi-letter aliases,
// `--list-models <search>` with a separate optional value, and `@file` arguments (kept positional).
// It also gives pi 1.6's errors for the flags whose value pi checks before anything else (pflag
// would take "--mode -p" as the mode "-p").
func normalizeArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if long, ok := shortAliases[a]; ok {
			out = append(out, long)
			continue
		}
		switch a {
		case "--mode":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return nil, usageError("--mode requires text, json, or rpc")
			}
			switch mode := args[i+1]; mode {
			case "text", "json", "rpc":
			default:
				return nil, usageError(fmt.Sprintf("Invalid mode %q. Valid values: text, json, rpc", mode))
			}
		case "--tui-mode":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return nil, usageError("--tui-mode requires regular or fullscreen")
			}
			if mode := args[i+1]; mode != "regular" && mode != "fullscreen" {
				return nil, usageError(fmt.Sprintf("Invalid TUI mode %q. Valid values: regular, fullscreen", mode))
			}
		case "--name", "-n":
			if i+1 >= len(args) {
				return nil, usageError("--name requires a value")
			}
		}
		if a == "--list-models" {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "@") {
				out = append(out, "--list-models="+args[i+1])
				i++
				continue
			}
			out = append(out, "--list-models=")
			continue
		}
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		out = append(out, a)
	}
	return out, nil
}

// bindFlags declares pi's flags on cmd, writing into o.
func bindFlags(cmd *cobra.Command, o *Options, listModels *string) {
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.Provider, "provider", "", "Provider name (used together with --model)")
	f.StringVar(&o.Model, "model", "", `Model pattern or ID (supports "provider/id" and optional ":<thinking>")`)
	f.StringVar(&o.APIKey, "api-key", "", "API key for the selected model's provider (defaults to env vars)")
	f.StringVar(&o.BaseURL, "base-url", "", "Any OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL)")
	f.StringVar(&o.SystemPrompt, "system-prompt", "", "System prompt text or file (replaces the default prompt)")
	f.StringArrayVar(&o.AppendSystemPrompt, "append-system-prompt", nil, "Append text or file contents to the system prompt (repeatable)")
	f.StringVar(&o.Mode, "mode", "", "Output mode: text (default), json, or rpc")
	f.BoolVarP(&o.Print, "print", "p", false, "Non-interactive mode: process the prompt(s), print the answer and exit")
	f.BoolVarP(&o.Continue, "continue", "c", false, "Continue the most recent session of this directory")
	f.BoolVarP(&o.Resume, "resume", "r", false, "Select a session to resume")
	f.StringVar(&o.Session, "session", "", "Use a specific session file or session id prefix")
	f.StringVar(&o.SessionID, "session-id", "", "Use the current directory's existing session with the ID, creating it otherwise")
	f.StringVar(&o.Fork, "fork", "", "Fork a session file or session id prefix into a new session")
	f.StringVar(&o.SessionDir, "session-dir", "", "Directory for session storage and lookup (env PI_CODING_AGENT_SESSION_DIR)")
	f.BoolVar(&o.NoSession, "no-session", false, "Don't save the session (ephemeral)")
	f.StringVarP(&o.Name, "name", "n", "", "Set the session's display name")
	f.StringSliceVar(&o.Models, "models", nil, "Comma-separated model patterns for Ctrl+P cycling (globs and fuzzy matching)")
	f.BoolVar(&o.NoTools, "no-tools", false, "Disable all tools (alias -nt)")
	f.BoolVar(&o.NoBuiltinTools, "no-builtin-tools", false, "Disable built-in tools (alias -nbt)")
	f.BoolVar(&o.NoMCP, "no-mcp", false, "Do not connect the MCP servers of mcp.json for this run")
	f.StringSliceVarP(&o.Tools, "tools", "t", nil, "Comma-separated allowlist of tool names or patterns (*): read,bash,edit,write,grep,find,ls;\n"+
		"only +name/-name entries add to or remove from the defaults")
	f.StringSliceVar(&o.ExcludeTools, "exclude-tools", nil, "Comma-separated denylist of tool names or patterns (*) (alias -xt)")
	f.StringVar(&o.Thinking, "thinking", "", "Thinking level: off, minimal, low, medium, high, xhigh, max")
	f.StringVar(&o.TUIMode, "tui-mode", "", "TUI mode: fullscreen (default) or regular")
	f.BoolVar(&o.NoContextFiles, "no-context-files", false, "Don't load AGENTS.md / CLAUDE.md files (alias -nc)")
	f.StringArrayVar(&o.Skills, "skill", nil, "Load a skill file or directory (repeatable)")
	f.StringArrayVarP(&o.Extensions, "extension", "e", nil, "Load an extension file or directory (repeatable)")
	f.BoolVar(&o.NoExtensions, "no-extensions", false, "Disable extension discovery (explicit -e paths still load)")
	f.BoolVar(&o.NoSkills, "no-skills", false, "Disable skills discovery and loading (alias -ns)")
	f.StringArrayVar(&o.PromptTemplates, "prompt-template", nil, "Load a prompt template file or directory (repeatable)")
	f.BoolVar(&o.NoPromptTemplates, "no-prompt-templates", false, "Disable prompt template discovery and loading (alias -np)")
	f.StringVar(&o.Export, "export", "", "Export a session file to HTML and exit (the output path may follow)")
	f.StringVar(listModels, "list-models", "", "List available models (with optional fuzzy search) and exit")
	f.Lookup("list-models").NoOptDefVal = ""
	approve := f.VarPF(&trustFlag{target: &o.Approve, value: true}, "approve", "a", "Trust project-local files for this run")
	approve.NoOptDefVal = "true"
	noApprove := f.VarPF(&trustFlag{target: &o.Approve, value: false}, "no-approve", "", "Ignore project-local files for this run (alias -na)")
	noApprove.NoOptDefVal = "true"
	f.BoolVar(&o.Verbose, "verbose", false, "Force verbose startup")
	f.BoolVar(&o.Offline, "offline", false, "Disable startup network operations (pi-go makes none; accepted for compatibility)")
	f.BoolVarP(&o.Version, "version", "v", false, "Show the version number")
	f.StringVar(&o.Rewind, "rewind", "", "Restore the session's files to a checkpoint (a checkpoint entry or turn id) and exit (pi-go)")
	f.BoolVar(&o.Force, "force", false, "With --rewind: overwrite files changed outside pi-go since its last checkpoint")
}

// finishOptions validates what flag parsing cannot and splits positionals into messages and @files.
func finishOptions(cmd *cobra.Command, o *Options, listModels string, args []string) error {
	if cmd.Flags().Changed("list-models") {
		o.ListModels = &listModels
	}
	o.ToolsSet = cmd.Flags().Changed("tools")
	o.NameSet = cmd.Flags().Changed("name")
	for _, a := range args {
		if strings.HasPrefix(a, "@") && len(a) > 1 {
			o.FileArgs = append(o.FileArgs, a[1:])
			continue
		}
		o.Messages = append(o.Messages, a)
	}
	switch o.Mode {
	case "", "text", "json", "rpc":
	default:
		return usageError(fmt.Sprintf("Invalid mode %q. Valid values: text, json, rpc", o.Mode))
	}
	if cmd.Flags().Changed("tui-mode") && o.TUIMode != "regular" && o.TUIMode != "fullscreen" {
		// --tui-mode=value (normalizeArgs checked the two-argument form).
		return usageError(fmt.Sprintf("Invalid TUI mode %q. Valid values: regular, fullscreen", o.TUIMode))
	}
	if o.Thinking != "" && !provider.IsThinkingLevel(o.Thinking) {
		// pi 1.6 warns and goes on without the level.
		o.Warnings = append(o.Warnings, fmt.Sprintf("Invalid thinking level %q. Valid values: off, minimal, low, medium, high, xhigh, max", o.Thinking))
		o.Thinking = ""
	}
	if o.Provider != "" && o.Model == "" && o.ListModels == nil && !strings.EqualFold(o.Provider, demo.ProviderName) {
		return usageError(fmt.Sprintf("--provider requires --model (for example: --provider %s --model <pattern>)", o.Provider))
	}
	if o.NameSet {
		if o.Name = strings.TrimSpace(o.Name); o.Name == "" {
			return usageError("--name requires a non-empty value")
		}
	}
	if o.SessionID != "" || cmd.Flags().Changed("session-id") {
		var conflicts []string
		if o.Session != "" {
			conflicts = append(conflicts, "--session")
		}
		if o.Continue {
			conflicts = append(conflicts, "--continue")
		}
		if o.Resume {
			conflicts = append(conflicts, "--resume")
		}
		if len(conflicts) > 0 {
			return usageError("--session-id cannot be combined with " + strings.Join(conflicts, ", "))
		}
		if !session.ValidID(o.SessionID) {
			return usageError("Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character")
		}
	}
	if o.Fork != "" {
		var conflicts []string
		if o.Session != "" {
			conflicts = append(conflicts, "--session")
		}
		if o.Continue {
			conflicts = append(conflicts, "--continue")
		}
		if o.Resume {
			conflicts = append(conflicts, "--resume")
		}
		if o.NoSession {
			conflicts = append(conflicts, "--no-session")
		}
		if len(conflicts) > 0 {
			return usageError("--fork cannot be combined with " + strings.Join(conflicts, ", "))
		}
	}
	if o.Rewind != "" && (o.Mode == "rpc" || len(o.Messages) > 0 || len(o.FileArgs) > 0 || o.NoSession) {
		return usageError("--rewind restores files and exits: it takes no messages, --mode rpc or --no-session")
	}
	if o.Force && o.Rewind == "" {
		return usageError("--force only applies to --rewind")
	}
	if o.Mode == "rpc" && len(o.FileArgs) > 0 {
		return usageError("@file arguments are not supported in RPC mode")
	}
	o.Tools = trimList(o.Tools)
	o.ExcludeTools = trimList(o.ExcludeTools)
	if problem := config.ToolListError(o.Tools); problem != "" {
		return usageError("--tools: " + problem)
	}
	return nil
}

// trimList drops the blanks of a comma-separated flag's entries.
func trimList(list []string) []string {
	var out []string
	for _, e := range list {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// trustFlag is --approve or --no-approve: both set one decision, so the last one given wins, as in pi.
type trustFlag struct {
	target **bool
	value  bool
}

func (f *trustFlag) Set(s string) error {
	if s != "true" {
		return fmt.Errorf("takes no value")
	}
	v := f.value
	*f.target = &v
	return nil
}

func (f *trustFlag) String() string   { return "" }
func (f *trustFlag) Type() string     { return "bool" }
func (f *trustFlag) IsBoolFlag() bool { return true }

// usageErr is a mistake on the command line: printed as one line, exit code 1.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }

func usageError(msg string) error { return &usageErr{msg: msg} }

// interactive reports whether the TUI should run (no -p, no --mode, no --rewind, stdin is a terminal).
func (o *Options) interactive(stdinIsTTY bool) bool {
	return !o.Print && o.Mode == "" && o.Rewind == "" && stdinIsTTY
}
