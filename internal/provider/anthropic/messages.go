package anthropic

import (
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// converted is the transcript as Anthropic messages, and the effort level recorded on earlier answers
// of an effort-marker model, by message index. The messages are written straight into the body.
type converted struct {
	messages        []wireMsg
	assistantLevels map[int]string
}

// wireBlock is one content block as sent, without its closing brace (the cache breakpoint goes
// before it).
type wireBlock struct {
	data []byte
}

type wireMsg struct {
	role      string
	str       *string // string content
	blocks    []wireBlock
	assistant bool
}

// convertOptions are what the conversion depends on besides the messages.
type convertOptions struct {
	allowEmptySignature, effort, oauth bool
	providerName                       string
}

// convertMessages converts a normalised transcript to Anthropic's messages (pi's convertMessages):
// a user message's blank text blocks are dropped, consecutive tool results travel in one user message
// (an error result's images after all of them), thinking is replayed with its signature (redacted
// thinking as its opaque payload; thinking without a signature as text). afterUser, unless nil, is
// called after each user message of msgs with the number of messages converted so far: nothing before
// a user message changes how what follows it converts. The cache breakpoint of the last message is the
// body's (see withBreakpoint).
func convertMessages(msgs []provider.Message, o convertOptions, afterUser func(wire int)) *converted {
	var out []wireMsg
	levels := map[int]string{}
	for i := 0; i < len(msgs); i++ {
		switch msg := msgs[i].(type) {
		case *provider.UserMessage:
			if w, ok := userMessage(msg); ok {
				out = append(out, w)
			}
			if afterUser != nil {
				afterUser(len(out))
			}
		case *provider.AssistantMessage:
			blocks := assistantBlocks(msg, o.allowEmptySignature, o.oauth)
			if len(blocks) == 0 {
				continue
			}
			if o.effort && msg.API == provider.APIAnthropicMessages && msg.Provider == o.providerName {
				if level := providerThinkingLevel(msg); level != "" {
					levels[len(out)] = level
				}
			}
			out = append(out, wireMsg{role: "assistant", blocks: blocks, assistant: true})
		case *provider.ToolResultMessage:
			var results, images []wireBlock
			j := i
			for ; j < len(msgs); j++ {
				tr, ok := msgs[j].(*provider.ToolResultMessage)
				if !ok {
					break
				}
				content := tr.Content
				if tr.IsError && hasImage(content) {
					content = replaceImages(content, errorImagePlaceholder)
					images = append(images, textBlock("Images from the error result of tool call "+tr.ToolCallID+
						" ("+tr.ToolName+"):"))
					for k := range tr.Content {
						if tr.Content[k].Type == provider.ContentImage {
							images = append(images, imageBlock(&tr.Content[k]))
						}
					}
				}
				results = append(results, toolResultBlock(tr, content))
			}
			i = j - 1
			out = append(out, wireMsg{role: "user", blocks: append(results, images...)})
		}
	}
	return &converted{messages: out, assistantLevels: levels}
}

// userMessage is a prompt's message, unless it has nothing to send.
func userMessage(msg *provider.UserMessage) (wireMsg, bool) {
	if msg.ContentIsString && len(msg.Content) == 1 && msg.Content[0].Type == provider.ContentText {
		text := msg.Content[0].Text
		if strings.TrimSpace(text) == "" {
			return wireMsg{}, false
		}
		return wireMsg{role: "user", str: &text}, true
	}
	var blocks []wireBlock
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			blocks = append(blocks, textBlock(c.Text))
		case provider.ContentImage:
			blocks = append(blocks, imageBlock(&c))
		}
	}
	return wireMsg{role: "user", blocks: blocks}, len(blocks) > 0
}

// appendTo appends the message as JSON.
func (w *wireMsg) appendTo(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsonx.AppendString(b, w.role)
	b = append(b, `,"content":`...)
	if w.str != nil {
		b = jsonx.AppendString(b, *w.str)
	} else {
		b = append(b, '[')
		for k, blk := range w.blocks {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, blk.data...)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// encodedLen is the length of what appendTo appends.
func (w *wireMsg) encodedLen() int {
	n := len(`{"role":,"content":}`) + jsonx.QuotedLen(w.role)
	if w.str != nil {
		return n + jsonx.QuotedLen(*w.str)
	}
	n += 2 + max(len(w.blocks)-1, 0) // brackets and commas
	for _, blk := range w.blocks {
		n += len(blk.data) + 1
	}
	return n
}

// providerThinkingLevel is the effort an earlier answer was given (pi's providerThinkingLevel), when
// it is one of Anthropic's.
func providerThinkingLevel(msg *provider.AssistantMessage) string {
	switch s := msg.ProviderThinkingLevel; s {
	case "low", "medium", "high", "xhigh", "max":
		return s
	}
	return ""
}

func assistantBlocks(msg *provider.AssistantMessage, allowEmptySignature, oauth bool) []wireBlock {
	var blocks []wireBlock
	for i := range msg.Content {
		c := &msg.Content[i]
		switch c.Type {
		case provider.ContentText:
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			blocks = append(blocks, textBlock(c.Text))
		case provider.ContentThinking:
			if c.Redacted {
				b := []byte(`{"type":"redacted_thinking","data":`)
				blocks = append(blocks, wireBlock{data: jsonx.AppendString(b, c.ThinkingSignature)})
				continue
			}
			hasSig := strings.TrimSpace(c.ThinkingSignature) != ""
			if strings.TrimSpace(c.Thinking) == "" && !hasSig {
				continue
			}
			switch {
			case hasSig:
				b := []byte(`{"type":"thinking","thinking":`)
				b = jsonx.AppendString(b, c.Thinking)
				b = append(b, `,"signature":`...)
				blocks = append(blocks, wireBlock{data: jsonx.AppendString(b, c.ThinkingSignature)})
			case allowEmptySignature:
				b := []byte(`{"type":"thinking","thinking":`)
				b = jsonx.AppendString(b, c.Thinking)
				blocks = append(blocks, wireBlock{data: append(b, `,"signature":""`...)})
			default:
				blocks = append(blocks, textBlock(c.Thinking))
			}
		case provider.ContentToolCall:
			b := []byte(`{"type":"tool_use","id":`)
			b = jsonx.AppendString(b, c.ID)
			name := c.Name
			if oauth {
				name = toClaudeCodeName(name)
			}
			b = append(b, `,"name":`...)
			b = jsonx.AppendString(b, name)
			b = append(b, `,"input":`...)
			args := strings.TrimSpace(string(c.Arguments))
			if args == "" || args == "null" {
				args = "{}"
			}
			b = appendCompactJSON(b, []byte(args))
			blocks = append(blocks, wireBlock{data: b})
		}
	}
	return blocks
}

func textBlock(text string) wireBlock {
	b := []byte(`{"type":"text","text":`)
	return wireBlock{data: jsonx.AppendString(b, text)}
}

func imageBlock(c *provider.Content) wireBlock {
	b := []byte(`{"type":"image","source":{"type":"base64","media_type":`)
	b = jsonx.AppendString(b, c.MimeType)
	b = append(b, `,"data":`...)
	b = jsonx.AppendString(b, c.Data)
	return wireBlock{data: append(b, '}')}
}

// toolResultBlock is pi's convertToolResult: text alone as one string, otherwise text and image
// blocks (a placeholder text first when there is no text).
func toolResultBlock(tr *provider.ToolResultMessage, content []provider.Content) wireBlock {
	b := []byte(`{"type":"tool_result","tool_use_id":`)
	b = jsonx.AppendString(b, tr.ToolCallID)
	b = append(b, `,"content":`...)
	if !hasImage(content) {
		var texts []string
		for _, c := range content {
			if c.Type == provider.ContentText {
				texts = append(texts, c.Text)
			}
		}
		b = jsonx.AppendString(b, strings.Join(texts, "\n"))
	} else {
		b = append(b, '[')
		n := 0
		hasText := false
		for _, c := range content {
			if c.Type == provider.ContentText {
				hasText = true
			}
		}
		if !hasText {
			b = append(b, textBlock(seeAttachedImage).data...)
			b = append(b, '}')
			n++
		}
		for i := range content {
			c := &content[i]
			var blk wireBlock
			switch c.Type {
			case provider.ContentText:
				blk = textBlock(c.Text)
			case provider.ContentImage:
				blk = imageBlock(c)
			default:
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = append(append(b, blk.data...), '}')
			n++
		}
		b = append(b, ']')
	}
	b = append(b, `,"is_error":`...)
	b = append(b, strconvBool(tr.IsError)...)
	return wireBlock{data: b}
}

func strconvBool(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

func hasImage(content []provider.Content) bool {
	for _, c := range content {
		if c.Type == provider.ContentImage {
			return true
		}
	}
	return false
}

// replaceImages swaps each run of images for one placeholder text.
func replaceImages(content []provider.Content, placeholder string) []provider.Content {
	out := make([]provider.Content, 0, len(content))
	prev := false
	for _, c := range content {
		if c.Type == provider.ContentImage {
			if !prev {
				out = append(out, provider.TextContent(placeholder))
			}
			prev = true
			continue
		}
		out = append(out, c)
		prev = c.Text == placeholder
	}
	return out
}
