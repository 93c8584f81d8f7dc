package compaction

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// imageChars is what one image counts for in a token estimate (pi's 4800 characters, 1200 tokens).
const imageChars = 4800

// EstimateTokens estimates a message's size as pi does: a quarter of its characters (JavaScript
// string length), rounded up. It counts assistant text, thinking and tool calls (name and JSON
// arguments); user, tool-result and custom text plus 4800 characters per image (user images count
// since pi 1.6); a bash execution's command and output; a summary's text; a system message's content,
// sections and added tools as JSON (pi 1.6). Other roles count 0. It overestimates on purpose.
func EstimateTokens(m provider.Message) int {
	chars := 0
	switch m := m.(type) {
	case *provider.SystemMessage:
		chars = contentChars(m.Content)
		for _, s := range m.Sections {
			if !s.Removed {
				chars += jsLen(s.Text)
			}
		}
		if m.ToolsAdded != nil {
			chars += declarationsLen(m.ToolsAdded)
		}
	case *provider.UserMessage:
		chars = contentChars(m.Content)
	case *provider.AssistantMessage:
		for _, c := range m.Content {
			switch c.Type {
			case provider.ContentText:
				chars += jsLen(c.Text)
			case provider.ContentThinking:
				chars += jsLen(c.Thinking)
			case provider.ContentToolCall:
				chars += jsLen(c.Name) + argumentsLen(c.Arguments)
			}
		}
	case *provider.ToolResultMessage:
		chars = contentChars(m.Content)
	case *provider.CustomMessage:
		chars = contentChars(m.Content)
	case *provider.BashExecutionMessage:
		chars = jsLen(m.Command) + jsLen(m.Output)
	case *provider.BranchSummaryMessage:
		chars = jsLen(m.Summary)
	case *provider.CompactionSummaryMessage:
		chars = jsLen(m.Summary)
	default:
		return 0
	}
	return (chars + 3) / 4
}

// contentChars counts text blocks and images of user, tool-result and custom content.
func contentChars(content []provider.Content) int {
	chars := 0
	for _, c := range content {
		switch c.Type {
		case provider.ContentText:
			chars += jsLen(c.Text)
		case provider.ContentImage:
			chars += imageChars
		}
	}
	return chars
}

// declarationsLen is the length of tool declarations as JSON.stringify writes them.
func declarationsLen(tools []provider.ToolDefinition) int {
	raw, err := provider.ToolDeclarationsJSON(tools)
	if err != nil {
		return 0
	}
	out, err := jsStringify(raw)
	if err != nil {
		return jsLen(string(raw))
	}
	return jsLen(string(out))
}

// argumentsLen is the length of a tool call's arguments as JSON.stringify writes them.
func argumentsLen(raw []byte) int {
	if len(raw) == 0 {
		return 2 // {}
	}
	out, err := jsStringify(raw)
	if err != nil {
		return 2
	}
	return jsLen(string(out))
}

// assistantUsage returns the usage of an assistant message that completed (neither aborted nor
// failed) and reported a context size: only those say what the request cost. An all-zero usage (a
// server that sends none) says nothing (pi 1.6; 0.73.1 took it for an empty context).
func assistantUsage(m provider.Message) (provider.Usage, bool) {
	a, ok := m.(*provider.AssistantMessage)
	if !ok || a.StopReason == provider.StopReasonAborted || a.StopReason == provider.StopReasonError ||
		a.Usage.ContextTokens() <= 0 {
		return provider.Usage{}, false
	}
	return a.Usage, true
}

// ContextEstimate is what EstimateContextTokens found.
type ContextEstimate struct {
	// Tokens is UsageTokens + TrailingTokens + OverheadTokens.
	Tokens int
	// UsageTokens is the context size the newest completed assistant message reported (0 without one).
	UsageTokens int
	// TrailingTokens is the estimate of the messages after it (of every message without one).
	TrailingTokens int
	// OverheadTokens is the system prompt and tools estimate EstimateRequestTokens added (0 when a
	// usage counted them, and always for EstimateContextTokens).
	OverheadTokens int
	// LastUsageIndex is the index of that assistant message in the list, -1 when there is none.
	LastUsageIndex int
}

// EstimateContextTokens estimates how many tokens msgs occupy (pi's estimateContextTokens): the
// usage the newest completed assistant message reported, plus estimates of the messages after it;
// with no such message, the estimates of all of them. As in pi 1.6, a usage counts only when no
// message before its answer is newer than the answer: a compaction summary placed before the
// answers it kept makes their usage (of the longer context before the compaction) stale.
func EstimateContextTokens(msgs []provider.Message) ContextEstimate {
	last := lastUsageIndex(msgs)
	est := ContextEstimate{LastUsageIndex: last}
	if last >= 0 {
		u, _ := assistantUsage(msgs[last])
		est.UsageTokens = u.ContextTokens()
	}
	for _, m := range msgs[last+1:] {
		est.TrailingTokens += EstimateTokens(m)
	}
	est.Tokens = est.UsageTokens + est.TrailingTokens
	return est
}

// lastUsageIndex is the index of the newest assistant message whose usage describes the context it
// was sent with, -1 when there is none.
func lastUsageIndex(msgs []provider.Message) int {
	last := -1
	newest := int64(math.MinInt64) // the newest timestamp before msgs[i]
	for i, m := range msgs {
		if _, ok := assistantUsage(m); ok && m.Time() >= newest {
			last = i
		}
		newest = max(newest, m.Time())
	}
	return last
}

// EstimateRequestTokens is EstimateContextTokens for a request that also carries overhead tokens
// besides the messages (the system prompt and the tool definitions, OverheadTokens): a usage the
// server reported counts them already, and so do the system messages of a transcript that declares
// them (pi 1.6 estimates those); an estimate from the messages of a transcript that declares no prompt
// yet (a new session, one pi 0.73.1 wrote) adds them.
func EstimateRequestTokens(msgs []provider.Message, overhead int) ContextEstimate {
	est := EstimateContextTokens(msgs)
	if est.LastUsageIndex < 0 && !slices.ContainsFunc(msgs, isSystemMessage) {
		est.OverheadTokens = overhead
		est.Tokens += overhead
	}
	return est
}

func isSystemMessage(m provider.Message) bool { return m.Role() == provider.RoleSystem }

// OverheadTokens estimates what a system prompt and tool definitions add to every request: a quarter
// of their characters, the tools counted as their JSON (pi 1.6's estimate of its system message).
func OverheadTokens(systemPrompt string, tools []provider.ToolDefinition) int {
	chars := jsLen(systemPrompt)
	if len(tools) > 0 {
		if b, err := json.Marshal(tools); err == nil {
			chars += len(b)
		}
	}
	return (chars + 3) / 4
}

// ShouldCompact reports whether a context of contextTokens has crossed the threshold of a window:
// more than contextWindow − reserveTokens (as Settings.ForWindow applies it), when compaction is
// enabled.
func ShouldCompact(contextTokens, contextWindow int, s Settings) bool {
	return s.Enabled && contextTokens > contextWindow-s.ForWindow(contextWindow).ReserveTokens
}

// LatestCompaction is the newest compaction entry of a branch, or nil (pi's getLatestCompactionEntry).
// The harness compares message timestamps with it to ignore usage from before the compaction.
func LatestCompaction(branch []*session.Entry) *session.Entry {
	for i := len(branch) - 1; i >= 0; i-- {
		if branch[i].Type == session.TypeCompaction {
			return branch[i]
		}
	}
	return nil
}
