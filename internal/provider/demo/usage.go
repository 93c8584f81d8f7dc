package demo

import "unicode/utf8"

// Token estimates: about four characters a token, as the brief and most tokenizers for English and
// code suggest. The numbers only need to look like a real server's, not match one.
const (
	charsPerToken   = 4
	messageOverhead = 4   // role and separators, per message
	callOverhead    = 6   // per tool call: id, type, name framing
	imageTokens     = 765 // a 1024×1024 image at high detail, as OpenAI counts it
	cacheMinimum    = 1024
	cacheBlock      = 128
)

type usage struct {
	prompt, completion, cached, reasoning int
}

func tokens(s string) int {
	n := utf8.RuneCountInString(s)
	return (n + charsPerToken - 1) / charsPerToken
}

// runeCount is utf8.RuneCount without its copy of b into a string (it has one past the first
// non-ASCII byte).
func runeCount(b []byte) int {
	n := 0
	for i := 0; i < len(b); n++ {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return n
}

func messageTokens(m message) int {
	text := tokens(m.Text)
	if m.buf != nil {
		text = (runeCount(m.buf) + charsPerToken - 1) / charsPerToken
	}
	n := messageOverhead + text + m.Images*imageTokens
	for _, tc := range m.ToolCalls {
		n += callOverhead + tokens(tc.Function.Name) + tokens(tc.Function.Arguments)
	}
	return n
}

func callTokens(calls []plannedCall) int {
	n := 0
	for _, c := range calls {
		n += callOverhead + tokens(c.Name) + tokens(c.Args)
	}
	return n
}

// estimateUsage counts the prompt as the server would, and pretends the part of it that an earlier
// request already sent (everything before the last assistant message) was served from a prompt
// cache, in OpenAI's 128-token blocks once the prompt reaches 1024 tokens.
func estimateUsage(c *conversation, r reply) usage {
	u := usage{prompt: 3 + (c.ToolsJSON+charsPerToken-1)/charsPerToken}
	prefix := u.prompt
	lastAssistant := -1
	for i, m := range c.Messages {
		if m.Role == "assistant" {
			lastAssistant = i
		}
	}
	for i, m := range c.Messages {
		t := m.tokens // counted when the message was read, before its text was let go
		u.prompt += t
		if i < lastAssistant {
			prefix += t
		}
	}
	if u.prompt >= cacheMinimum && prefix >= cacheMinimum {
		u.cached = prefix / cacheBlock * cacheBlock
	}
	u.reasoning = tokens(r.Thinking)
	u.completion = u.reasoning + tokens(r.Text) + callTokens(r.Calls)
	if u.completion == 0 {
		u.completion = 1
	}
	return u
}

// limit cuts the reply to maxTokens of output, as a server stopping at max_tokens would: reasoning
// first, then text; tool calls that do not fit are dropped. It reports whether anything was cut.
func (r *reply) limit(maxTokens int) bool {
	if maxTokens <= 0 {
		return false
	}
	budget := maxTokens
	cut := func(s string) (string, bool) {
		if tokens(s) <= budget {
			budget -= tokens(s)
			return s, false
		}
		runes := []rune(s)
		keep := budget * charsPerToken
		if keep > len(runes) {
			keep = len(runes)
		}
		budget = 0
		return string(runes[:keep]), true
	}
	var cutThinking, cutText bool
	r.Thinking, cutThinking = cut(r.Thinking)
	r.Text, cutText = cut(r.Text)
	if cutThinking || cutText || callTokens(r.Calls) > budget {
		r.Calls = nil
		return true
	}
	return false
}
