package blockstream

import (
	"unicode/utf16"

	"github.com/pi-go/pi-go/internal/provider"
)

// The margins of pi 1.6's clampMaxTokensToContext.
const (
	contextSafetyTokens       = 4096
	minOutputWithRatioMargin  = 32768
	contextSafetyRatioPercent = 15
)

// OutputLimit is the output-token limit pi 1.6 asks these APIs for: the call's MaxTokens, else the
// model's, fitted into the context window left after the input (estimated at four characters a token,
// as pi estimates it) and a safety margin. 0 means none.
func OutputLimit(req *provider.Request) int {
	m := req.Model
	limit := req.Options.MaxTokens
	if limit <= 0 {
		limit = m.MaxTokens
	}
	if limit <= 0 {
		return 0
	}
	if m.ContextWindow <= 0 {
		return max(1, limit)
	}
	input := estimateInput(req)
	margin := max(contextSafetyTokens, (input*contextSafetyRatioPercent+99)/100)
	room := m.ContextWindow - input - margin
	if room < minOutputWithRatioMargin {
		room = min(minOutputWithRatioMargin, m.ContextWindow-input-contextSafetyTokens)
	}
	return min(limit, max(1, room))
}

// estimateInput is pi's token estimate of the transcript: the context the last answer reported, plus a
// quarter of the characters of what came after it (4800 characters per image).
func estimateInput(req *provider.Request) int {
	tokens := 0
	start := 0
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if a, ok := req.Messages[i].(*provider.AssistantMessage); ok && a.StopReason != provider.StopReasonError &&
			a.StopReason != provider.StopReasonAborted && a.Usage.ContextTokens() > 0 {
			tokens = a.Usage.ContextTokens()
			start = i + 1
			break
		}
	}
	if start == 0 {
		// pi counts the system message too: its text and its tools as JSON.
		chars := jsLen(req.SystemPrompt)
		if len(req.Tools) > 0 {
			if decl, err := provider.ToolDeclarationsJSON(req.Tools); err == nil {
				chars += len(decl)
			}
		}
		tokens += (chars + 3) / 4
	}
	for _, msg := range req.Messages[start:] {
		tokens += (messageChars(msg) + 3) / 4
	}
	return tokens
}

func messageChars(msg provider.Message) int {
	var content []provider.Content
	switch m := msg.(type) {
	case *provider.UserMessage:
		content = m.Content
	case *provider.ToolResultMessage:
		content = m.Content
	case *provider.AssistantMessage:
		content = m.Content
	}
	n := 0
	for _, c := range content {
		switch c.Type {
		case provider.ContentText:
			n += jsLen(c.Text)
		case provider.ContentThinking:
			n += jsLen(c.Thinking)
		case provider.ContentToolCall:
			n += jsLen(c.Name) + len(c.Arguments)
		case provider.ContentImage:
			n += 4800
		}
	}
	return n
}

// jsLen is a string's JavaScript length (UTF-16 code units).
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
