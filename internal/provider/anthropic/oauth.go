package anthropic

import "strings"

// Claude Pro/Max subscription tokens (sk-ant-oat…) are accepted only from Claude Code: pi sends them
// as a bearer token with Claude Code's identity (its user agent, betas and first system block) and
// Claude Code's casing of the tool names it shares.

const (
	claudeCodeVersion  = "2.1.322"
	claudeCodeIdentity = "You are Claude Code, Anthropic's official CLI for Claude."
)

// claudeCodeBetas come before the others on an OAuth request.
var claudeCodeBetas = []string{"claude-code-20250219", "oauth-2025-04-20"}

// claudeCodeTools are Claude Code's tool names in their canonical casing.
var claudeCodeTools = []string{"Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode",
	"ExitPlanMode", "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch"}

// isOAuthToken reports whether key is a Claude subscription token.
func isOAuthToken(key string) bool { return strings.Contains(key, "sk-ant-oat") }

// toClaudeCodeName gives a tool Claude Code's casing when Claude Code has a tool of that name.
func toClaudeCodeName(name string) string {
	for _, t := range claudeCodeTools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return name
}

// fromClaudeCodeName maps a tool name the model used back to the request's own tool of that name.
func fromClaudeCodeName(name string, tools []string) string {
	for _, t := range tools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return name
}
