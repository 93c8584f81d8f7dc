package harness

import (
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// The wrappers pi puts around summaries when they reach the model.
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
	branchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSummarySuffix     = "</summary>"
)

// BashExecutionText is how a `!cmd` the user ran reaches the model (pi's bashExecutionToText).
func BashExecutionText(m *provider.BashExecutionMessage) string {
	var b strings.Builder
	b.WriteString("Ran `")
	b.WriteString(m.Command)
	b.WriteString("`\n")
	if m.Output != "" {
		b.WriteString("```\n")
		b.WriteString(m.Output)
		b.WriteString("\n```")
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		b.WriteString("\n\nCommand exited with code ")
		b.WriteString(strconv.Itoa(*m.ExitCode))
	}
	if m.Truncated && m.FullOutputPath != "" {
		b.WriteString("\n\n[Output truncated. Full output: ")
		b.WriteString(m.FullOutputPath)
		b.WriteString("]")
	}
	return b.String()
}

// ConvertToLLM turns the coding-agent transcript into the roles a model understands: bash executions,
// custom messages and summaries become user messages; system messages stay (the request's prompt and
// tools are their replay); unknown roles are dropped.
func ConvertToLLM(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		if llm := convertOne(m); llm != nil {
			out = append(out, llm)
		}
	}
	return out
}

// convertOne is ConvertToLLM of one message (nil when it is not sent).
func convertOne(m provider.Message) provider.Message {
	switch m := m.(type) {
	case *provider.SystemMessage, *provider.UserMessage, *provider.AssistantMessage, *provider.ToolResultMessage:
		return m
	case *provider.BashExecutionMessage:
		if m.ExcludeFromContext {
			return nil
		}
		return &provider.UserMessage{
			Content:   []provider.Content{provider.TextContent(BashExecutionText(m))},
			Timestamp: m.Timestamp,
		}
	case *provider.CustomMessage:
		return &provider.UserMessage{Content: m.Content, Timestamp: m.Timestamp}
	case *provider.BranchSummaryMessage:
		return &provider.UserMessage{
			Content:   []provider.Content{provider.TextContent(branchSummaryPrefix + m.Summary + branchSummarySuffix)},
			Timestamp: m.Timestamp,
		}
	case *provider.CompactionSummaryMessage:
		return &provider.UserMessage{
			Content:   []provider.Content{provider.TextContent(compactionSummaryPrefix + m.Summary + compactionSummarySuffix)},
			Timestamp: m.Timestamp,
		}
	}
	return nil
}
