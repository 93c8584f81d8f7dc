package provider

import "strings"

// Placeholders for images sent to a model without image input (pi's texts).
const (
	userImageOmitted = "(image omitted: model does not support images)"
	toolImageOmitted = "(tool image omitted: model does not support images)"
	noResultProvided = "No result provided"
)

// TransformMessages normalises a transcript before every call, whatever the API (pi-ai's
// transformMessages, pi-reference §1.7): images become placeholders for text-only models; replies of
// another model lose their thinking and tool-call signatures, and their tool-call ids
// are normalised by normalizeID (results follow the new ids); errored and aborted replies are dropped;
// tool calls left without a result get an error result "No result provided". Every API package calls
// it. The input is not modified.
func TransformMessages(msgs []Message, m *Model, normalizeID func(string) string) []Message {
	images := m.SupportsImages()
	idMap := map[string]string{}
	transformed := make([]Message, 0, len(msgs))
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *UserMessage:
			if !images && hasImage(msg.Content) {
				cp := *msg
				cp.Content = replaceImages(msg.Content, userImageOmitted)
				transformed = append(transformed, &cp)
				continue
			}
			transformed = append(transformed, msg)
		case *ToolResultMessage:
			out := msg
			if !images && hasImage(msg.Content) {
				cp := *msg
				cp.Content = replaceImages(msg.Content, toolImageOmitted)
				out = &cp
			}
			if id, ok := idMap[out.ToolCallID]; ok && id != out.ToolCallID {
				if out == msg {
					cp := *msg
					out = &cp
				}
				out.ToolCallID = id
			}
			transformed = append(transformed, out)
		case *AssistantMessage:
			transformed = append(transformed, transformAssistant(msg, m, normalizeID, idMap))
		default:
			transformed = append(transformed, msg)
		}
	}
	return insertMissingResults(transformed)
}

func hasImage(content []Content) bool {
	for _, c := range content {
		if c.Type == ContentImage {
			return true
		}
	}
	return false
}

// replaceImages swaps images for one placeholder text per run of images.
func replaceImages(content []Content, placeholder string) []Content {
	out := make([]Content, 0, len(content))
	prevPlaceholder := false
	for _, c := range content {
		if c.Type == ContentImage {
			if !prevPlaceholder {
				out = append(out, TextContent(placeholder))
			}
			prevPlaceholder = true
			continue
		}
		out = append(out, c)
		prevPlaceholder = c.Type == ContentText && c.Text == placeholder
	}
	return out
}

func transformAssistant(msg *AssistantMessage, m *Model, normalizeID func(string) string,
	idMap map[string]string) *AssistantMessage {
	sameModel := msg.Provider == m.Provider && msg.API == apiOf(m) && msg.Model == m.ID
	if sameModel && !dropsBlankThinking(msg.Content) {
		// The model's own reply goes back as it is.
		return msg
	}
	cp := *msg
	out := &cp
	out.Content = make([]Content, 0, len(msg.Content))
	for _, c := range msg.Content {
		switch c.Type {
		case ContentThinking:
			// Another model's thinking is dropped (pi 1.6): signatures and encrypted reasoning only
			// mean something to the model that wrote them, and readable thinking sent as text would
			// read to the new model as part of the visible reply.
			switch {
			case !sameModel:
			case c.Redacted, c.ThinkingSignature != "":
				out.Content = append(out.Content, c)
			case strings.TrimSpace(c.Thinking) != "":
				out.Content = append(out.Content, c)
			}
		case ContentText:
			if sameModel {
				out.Content = append(out.Content, c)
			} else {
				out.Content = append(out.Content, TextContent(c.Text))
			}
		case ContentToolCall:
			if !sameModel {
				c.ThoughtSignature = ""
				if normalizeID != nil {
					if id := normalizeID(c.ID); id != c.ID {
						idMap[c.ID] = id
						c.ID = id
					}
				}
			}
			out.Content = append(out.Content, c)
		default:
			out.Content = append(out.Content, c)
		}
	}
	return out
}

// dropsBlankThinking reports whether content has a thinking block the model's own reply drops: blank,
// not redacted, without a signature.
func dropsBlankThinking(content []Content) bool {
	for _, c := range content {
		if c.Type == ContentThinking && !c.Redacted && c.ThinkingSignature == "" && strings.TrimSpace(c.Thinking) == "" {
			return true
		}
	}
	return false
}

func apiOf(m *Model) string {
	if m.API == "" {
		return APIOpenAICompletions
	}
	return m.API
}

// insertMissingResults drops errored/aborted replies and gives every tool call without a result an
// error result, placed before the next reply or user message (or at the end). A result whose call is
// not in the reply before it (its reply was dropped) is dropped too: servers reject a tool message
// that answers no call (pi sends it and gets a 400).
func insertMissingResults(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	var pending []Content
	have := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			if !have[tc.ID] {
				out = append(out, &ToolResultMessage{
					ToolCallID: tc.ID,
					ToolName:   tc.Name,
					Content:    []Content{TextContent(noResultProvided)},
					IsError:    true,
					Timestamp:  Now(),
				})
			}
		}
		pending = nil
		clear(have)
	}
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *AssistantMessage:
			flush()
			if msg.StopReason == StopReasonError || msg.StopReason == StopReasonAborted {
				continue
			}
			if calls := msg.ToolCalls(); len(calls) > 0 {
				pending = calls
				clear(have)
			}
			out = append(out, msg)
		case *ToolResultMessage:
			if !callPending(pending, msg.ToolCallID) {
				continue
			}
			have[msg.ToolCallID] = true
			out = append(out, msg)
		case *UserMessage:
			flush()
			out = append(out, msg)
		default:
			out = append(out, msg)
		}
	}
	flush()
	return out
}

func callPending(calls []Content, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}
