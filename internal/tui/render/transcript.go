package render

import "github.com/pi-go/pi-go/internal/provider"

// TranscriptOptions say how a whole transcript is shown.
type TranscriptOptions struct {
	HideThinking bool
	// Expand shows tool output, summaries and `!` output in full (pi's Ctrl+O state).
	Expand bool
	// ThinkingLabel is the line of a hidden thinking block ("" for pi's).
	ThinkingLabel string
	// Images, when set, draws the images of a user message or a tool result for a terminal that
	// shows them inline: its lines follow the block, whose one-line labels stay. Nil keeps the labels
	// alone (no image protocol, images turned off, fullscreen).
	Images func(content []provider.Content, width int) []string
	// MessageID and Timestamp are the session entry of the message Message renders, for markdown
	// transformers (empty: a live message).
	MessageID, Timestamp string
}

// Transcript renders messages as the chat shows them (a resumed session, a rebuilt chat): each
// message as its block, every tool call of an assistant message as a tool block right after it,
// completed by its result from later in the list. Tool results are shown with their call, never on
// their own; a call without a result shows as pending.
func (r *Renderer) Transcript(msgs []provider.Message, o TranscriptOptions, width int) []string {
	results := make(map[string]*provider.ToolResultMessage)
	for _, m := range msgs {
		if tr, ok := m.(*provider.ToolResultMessage); ok {
			results[tr.ToolCallID] = tr
		}
	}
	var out []string
	for _, m := range msgs {
		out = append(out, r.Message(m, results, o, width)...)
	}
	return out
}

// Message renders one transcript message. For an assistant message the tool blocks of its calls
// follow, with their results looked up in results (which may be nil). A tool result alone renders
// nothing: it belongs to its call.
func (r *Renderer) Message(m provider.Message, results map[string]*provider.ToolResultMessage, o TranscriptOptions, width int) []string {
	meta := mdMeta{o.MessageID, o.Timestamp}
	switch m := m.(type) {
	case *provider.UserMessage:
		return o.withImages(r.prompt(m, o.Expand, meta, width), m.Content, width)
	case *provider.AssistantMessage:
		out := r.AssistantMessage(m, AssistantOptions{HideThinking: o.HideThinking, ThinkingLabel: o.ThinkingLabel,
			MessageID: o.MessageID, Timestamp: o.Timestamp}, width)
		for _, c := range m.Content {
			if c.Type != provider.ContentToolCall {
				continue
			}
			v := ToolViewFromMessages(c, results[c.ID])
			v.Expanded = o.Expand
			if v.Status != ToolDone && (m.StopReason == provider.StopReasonError || m.StopReason == provider.StopReasonAborted) {
				// pi marks calls of a failed message as errors with the message's error.
				v.Status, v.IsError = ToolDone, true
				v.Result = errorResult(errorLineText(m))
			}
			out = append(out, r.Tool(v, width)...)
			if v.Result != nil {
				out = o.withImages(out, v.Result.Content, width)
			}
		}
		return out
	case *provider.BashExecutionMessage:
		v := BashViewFromMessage(m)
		v.Expanded = o.Expand
		return r.BashExecution(v, width)
	case *provider.CompactionSummaryMessage:
		return r.compactionSummary(m, o.Expand, meta, width)
	case *provider.BranchSummaryMessage:
		return r.branchSummary(m, o.Expand, meta, width)
	case *provider.CustomMessage:
		return r.customMessage(m, meta, width)
	}
	return nil
}

// withImages appends what o.Images draws for content to a block's lines.
func (o TranscriptOptions) withImages(lines []string, content []provider.Content, width int) []string {
	if o.Images == nil {
		return lines
	}
	return append(lines, o.Images(content, width)...)
}

// errorLineText is what pi puts into the unfinished tool calls of a failed assistant message.
func errorLineText(m *provider.AssistantMessage) string {
	if m.StopReason == provider.StopReasonAborted {
		return "Operation aborted"
	}
	if m.ErrorMessage != "" {
		return m.ErrorMessage
	}
	return "Error"
}
