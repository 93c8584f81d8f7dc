package provider

import (
	"math"
	"unicode/utf8"
)

// pi-ai's estimate of the context (estimate.js), to keep an answer's output limit inside the window
// (simple-options.js), as every API pi speaks does.
const (
	charsPerToken        = 3.5
	estimatedImageChars  = 4800
	contextSafetyTokens  = 4096
	contextSafetyRatio   = 0.15
	minOutputWithMargin  = 32768
	minMaxTokens         = 1
	unserializableLength = len("[unserializable]")
)

// ClampMaxTokensToContext fits maxTokens into the window of req's model, leaving room for the input
// being counted higher than estimated (pi's clampMaxTokensToContext).
func ClampMaxTokensToContext(req *Request, maxTokens int) int {
	m := req.Model
	if m.ContextWindow <= 0 {
		return max(minMaxTokens, maxTokens)
	}
	input := EstimateContextTokens(req)
	margin := max(contextSafetyTokens, int(math.Ceil(float64(input)*contextSafetyRatio)))
	room := m.ContextWindow - input - margin
	if room < minOutputWithMargin {
		room = min(minOutputWithMargin, m.ContextWindow-input-contextSafetyTokens)
	}
	return min(maxTokens, max(minMaxTokens, room))
}

// EstimateContextTokens is pi's estimate: the last usable answer's reported context plus an
// estimate of what came after it, or an estimate of everything (the system prompt and tools count as
// the transcript's first message).
func EstimateContextTokens(req *Request) int {
	msgs := req.Messages
	last := -1
	latest := int64(math.MinInt64)
	for i, msg := range msgs {
		if a, ok := msg.(*AssistantMessage); ok {
			if a.Timestamp >= latest && a.StopReason != StopReasonAborted &&
				a.StopReason != StopReasonError && a.Usage.ContextTokens() > 0 {
				last = i
			}
		}
		latest = max(latest, msg.Time())
	}
	if last >= 0 {
		tokens := msgs[last].(*AssistantMessage).Usage.ContextTokens()
		for _, msg := range msgs[last+1:] {
			tokens += estimateMessageTokens(msg)
		}
		return tokens
	}
	tokens := ceilTokens(jsLen(req.SystemPrompt))
	if len(req.Tools) > 0 {
		if data, err := ToolDeclarationsJSON(req.Tools); err == nil {
			tokens += ceilTokens(jsLen(string(data)))
		} else {
			tokens += ceilTokens(unserializableLength)
		}
	}
	for _, msg := range msgs {
		tokens += estimateMessageTokens(msg)
	}
	return tokens
}

func estimateMessageTokens(msg Message) int {
	switch m := msg.(type) {
	case *UserMessage:
		return ceilTokens(contentChars(m.Content))
	case *ToolResultMessage:
		return ceilTokens(contentChars(m.Content))
	case *AssistantMessage:
		chars := 0
		for _, c := range m.Content {
			switch c.Type {
			case ContentText:
				chars += jsLen(c.Text)
			case ContentThinking:
				chars += jsLen(c.Thinking)
			case ContentToolCall:
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				chars += jsLen(c.Name) + jsLen(args)
			}
		}
		return ceilTokens(chars)
	}
	return 0
}

func contentChars(content []Content) int {
	chars := 0
	for _, c := range content {
		if c.Type == ContentText {
			chars += jsLen(c.Text)
		} else {
			chars += estimatedImageChars
		}
	}
	return chars
}

func ceilTokens(chars int) int { return int(math.Ceil(float64(chars) / charsPerToken)) }

// jsLen is JavaScript's string length: UTF-16 code units.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 && r != utf8.RuneError {
			n += 2
		} else {
			n++
		}
	}
	return n
}
