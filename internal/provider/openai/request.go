package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
)

// The request body is written here, field for field as pi 0.73.1 writes it, and handed to go-openai's
// transport by callDoer. go-openai's ChatCompletionRequest cannot say several things pi says: store:false
// and strict:false (omitempty booleans), content:null on an assistant message with tool calls and
// content:"" on a tool result (omitempty strings), tools:[] (omitempty slice), temperature 0, thinking
// replayed under its own field name (reasoning, reasoning_text), enable_thinking, thinking,
// reasoning.effort, cache_control and prompt_cache_key; and its validator refuses some bodies pi sends
// (tools with reasoning on GPT-6 models).

// Texts pi sends on the model's behalf.
const (
	processedToolResults = "I have processed the tool results."
	attachedImages       = "Attached image(s) from tool result:"
	seeAttachedImage     = "(see attached image)"
	defaultMaxTokensCap  = 32000
)

// wirePart is one part of an array content.
type wirePart struct {
	image bool
	text  string // text, or the image URL
	cache bool
}

// wireContent is a message content: null, a string or parts.
type wireContent struct {
	null     bool
	isString bool
	str      string
	parts    []wirePart
}

type wireToolCall struct {
	id, name, args string
}

// wireMessage is one chat message as sent; fields are written in pi's order.
type wireMessage struct {
	role             string
	content          wireContent
	reasoningField   string // thinking replayed under the field it came from
	reasoningText    string
	toolCalls        []wireToolCall
	reasoningDetails []json.RawMessage
	emptyReasoning   bool // reasoning_content:"" for servers that require it
	toolCallID       string
	name             string
}

// reservedFields cannot be used as a thinking signature (the field thinking is replayed under).
var reservedFields = map[string]bool{"role": true, "content": true, "tool_calls": true, "tool_call_id": true,
	"name": true, "reasoning_details": true, "refusal": true, "function_call": true}

var nonIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// normalizeToolCallID makes another provider's tool-call id acceptable here: Responses-style
// "call|item" ids keep the call part, sanitised and cut to 40 characters; OpenAI itself rejects ids
// longer than 40.
func normalizeToolCallID(m *provider.Model) func(string) string {
	return func(id string) string {
		if i := strings.IndexByte(id, '|'); i >= 0 {
			return truncate(nonIDChars.ReplaceAllString(id[:i], "_"), 40)
		}
		if m.Provider == "openai" {
			return truncate(id, 40)
		}
		return id
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// convertMessages turns the transcript into chat messages (pi-reference §1.8).
func convertMessages(req *provider.Request, c *compat) []wireMessage {
	m := req.Model
	msgs := transformMessages(req.Messages, m, normalizeToolCallID(m))
	var out []wireMessage
	if req.SystemPrompt != "" {
		role := "system"
		if m.Reasoning && c.supportsDeveloperRole {
			role = "developer"
		}
		out = append(out, wireMessage{role: role, content: wireContent{isString: true, str: req.SystemPrompt}})
	}
	lastRole := ""
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		if c.requiresAssistantAfterToolResult && lastRole == provider.RoleToolResult && msg.Role() == provider.RoleUser {
			out = append(out, wireMessage{role: "assistant", content: wireContent{isString: true, str: processedToolResults}})
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			wm, ok := convertUser(msg)
			if !ok {
				continue
			}
			out = append(out, wm)
		case *provider.AssistantMessage:
			wm, ok := convertAssistant(msg, m, c)
			if !ok {
				continue
			}
			out = append(out, wm)
		case *provider.ToolResultMessage:
			j := i
			var images []wirePart
			for ; j < len(msgs); j++ {
				tr, ok := msgs[j].(*provider.ToolResultMessage)
				if !ok {
					break
				}
				text := provider.TextOf(tr.Content, "\n")
				if text == "" {
					text = seeAttachedImage
				}
				wm := wireMessage{role: "tool", content: wireContent{isString: true, str: text}, toolCallID: tr.ToolCallID}
				if c.requiresToolResultName && tr.ToolName != "" {
					wm.name = tr.ToolName
				}
				out = append(out, wm)
				if m.SupportsImages() {
					for _, b := range tr.Content {
						if b.Type == provider.ContentImage {
							images = append(images, wirePart{image: true, text: dataURL(b)})
						}
					}
				}
			}
			i = j - 1
			if len(images) > 0 {
				if c.requiresAssistantAfterToolResult {
					out = append(out, wireMessage{role: "assistant", content: wireContent{isString: true, str: processedToolResults}})
				}
				parts := append([]wirePart{{text: attachedImages}}, images...)
				out = append(out, wireMessage{role: "user", content: wireContent{parts: parts}})
				lastRole = provider.RoleUser
			} else {
				lastRole = provider.RoleToolResult
			}
			continue
		default:
			// Other roles are converted by the caller; anything left is not sent.
		}
		lastRole = msg.Role()
	}
	return out
}

func dataURL(b provider.Content) string { return "data:" + b.MimeType + ";base64," + b.Data }

func convertUser(msg *provider.UserMessage) (wireMessage, bool) {
	if msg.ContentIsString && len(msg.Content) == 1 && msg.Content[0].Type == provider.ContentText {
		return wireMessage{role: "user", content: wireContent{isString: true, str: msg.Content[0].Text}}, true
	}
	parts := make([]wirePart, 0, len(msg.Content))
	for _, b := range msg.Content {
		switch b.Type {
		case provider.ContentText:
			parts = append(parts, wirePart{text: b.Text})
		case provider.ContentImage:
			parts = append(parts, wirePart{image: true, text: dataURL(b)})
		}
	}
	if len(parts) == 0 {
		return wireMessage{}, false
	}
	return wireMessage{role: "user", content: wireContent{parts: parts}}, true
}

func convertAssistant(msg *provider.AssistantMessage, m *provider.Model, c *compat) (wireMessage, bool) {
	wm := wireMessage{role: "assistant", content: wireContent{null: true}}
	if c.requiresAssistantAfterToolResult {
		// Some servers reject null content.
		wm.content = wireContent{isString: true}
	}
	var textParts []wirePart
	var text strings.Builder
	var thinking []provider.Content
	for _, b := range msg.Content {
		switch b.Type {
		case provider.ContentText:
			if strings.TrimSpace(b.Text) != "" {
				textParts = append(textParts, wirePart{text: b.Text})
				text.WriteString(b.Text)
			}
		case provider.ContentThinking:
			if strings.TrimSpace(b.Thinking) != "" {
				thinking = append(thinking, b)
			}
		}
	}
	switch {
	case len(thinking) > 0 && c.requiresThinkingAsText:
		joined := make([]string, len(thinking))
		for i, b := range thinking {
			joined[i] = b.Thinking
		}
		wm.content = wireContent{parts: append([]wirePart{{text: strings.Join(joined, "\n\n")}}, textParts...)}
	case len(thinking) > 0:
		if text.Len() > 0 {
			wm.content = wireContent{isString: true, str: text.String()}
		}
		if sig := thinking[0].ThinkingSignature; sig != "" && !reservedFields[sig] {
			joined := make([]string, len(thinking))
			for i, b := range thinking {
				joined[i] = b.Thinking
			}
			wm.reasoningField = sig
			wm.reasoningText = strings.Join(joined, "\n")
		}
	case text.Len() > 0:
		wm.content = wireContent{isString: true, str: text.String()}
	}
	for _, b := range msg.Content {
		if b.Type != provider.ContentToolCall {
			continue
		}
		args := "{}"
		if a := bytes.TrimSpace(b.Arguments); len(a) > 0 {
			var compact bytes.Buffer
			if json.Compact(&compact, a) == nil {
				args = compact.String()
			}
		}
		wm.toolCalls = append(wm.toolCalls, wireToolCall{id: b.ID, name: b.Name, args: args})
		if b.ThoughtSignature != "" {
			var detail json.RawMessage
			if json.Unmarshal([]byte(b.ThoughtSignature), &detail) == nil && truthy(bytes.TrimSpace(detail)) {
				var compact bytes.Buffer
				if json.Compact(&compact, detail) == nil {
					wm.reasoningDetails = append(wm.reasoningDetails, compact.Bytes())
				}
			}
		}
	}
	if c.requiresReasoningContentOnAssistant && m.Reasoning && wm.reasoningField != "reasoning_content" {
		wm.emptyReasoning = true
	}
	hasContent := (wm.content.isString && wm.content.str != "") || len(wm.content.parts) > 0
	if !hasContent && len(wm.toolCalls) == 0 {
		// Nothing to replay (an aborted reply with no content, say); servers reject empty messages.
		return wireMessage{}, false
	}
	return wm, true
}

// hasToolHistory: some proxies require a tools field whenever the history has tool calls or results.
func hasToolHistory(msgs []provider.Message) bool {
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *provider.ToolResultMessage:
			return true
		case *provider.AssistantMessage:
			for _, b := range msg.Content {
				if b.Type == provider.ContentToolCall {
					return true
				}
			}
		}
	}
	return false
}

// buildBody writes the chat-completions request body for req.
func buildBody(req *provider.Request, c *compat) ([]byte, error) {
	m := req.Model
	opts := &req.Options
	msgs := convertMessages(req, c)
	tools := len(req.Tools) > 0 || hasToolHistory(req.Messages)
	if c.anthropicCacheControl {
		applyCacheControl(msgs)
	}

	w := &jsonWriter{}
	w.b = append(w.b, '{')
	w.key("model")
	w.str(m.ID)
	w.key("messages")
	w.b = append(w.b, '[')
	for i := range msgs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.message(&msgs[i])
	}
	w.b = append(w.b, ']')
	w.key("stream")
	w.b = append(w.b, "true"...)
	if opts.SessionID != "" && strings.Contains(m.BaseURL, "api.openai.com") {
		w.key("prompt_cache_key")
		w.str(opts.SessionID)
	}
	if c.supportsUsageInStreaming {
		w.key("stream_options")
		w.b = append(w.b, `{"include_usage":true}`...)
	}
	if c.supportsStore {
		w.key("store")
		w.b = append(w.b, "false"...)
	}
	maxTokens := opts.MaxTokens
	if maxTokens <= 0 && m.MaxTokens > 0 {
		maxTokens = min(m.MaxTokens, defaultMaxTokensCap)
	}
	if maxTokens > 0 {
		if c.maxTokensField == "max_tokens" {
			w.key("max_tokens")
		} else {
			w.key("max_completion_tokens")
		}
		w.b = strconv.AppendInt(w.b, int64(maxTokens), 10)
	}
	if opts.Temperature != nil {
		w.key("temperature")
		data, err := provider.MarshalJS(*opts.Temperature)
		if err != nil {
			return nil, fmt.Errorf("temperature: %w", err)
		}
		w.b = append(w.b, data...)
	}
	if tools {
		w.key("tools")
		w.b = append(w.b, '[')
		for i, t := range req.Tools {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if err := w.tool(t, c, c.anthropicCacheControl && i == len(req.Tools)-1); err != nil {
				return nil, err
			}
		}
		w.b = append(w.b, ']')
	}
	writeReasoning(w, m, c, effectiveLevel(m, opts.Reasoning))
	w.b = append(w.b, '}')
	return w.b, nil
}

// writeReasoning adds the thinking switch in the server's dialect; reasoning fields go only to
// reasoning models.
func writeReasoning(w *jsonWriter, m *provider.Model, c *compat, level provider.ThinkingLevel) {
	if !m.Reasoning {
		return
	}
	on := level != provider.ThinkingOff
	switch c.thinkingFormat {
	case thinkingZAI, thinkingQwen:
		w.key("enable_thinking")
		w.b = strconv.AppendBool(w.b, on)
	case thinkingQwenChatTemplate:
		w.key("chat_template_kwargs")
		w.b = append(w.b, `{"enable_thinking":`...)
		w.b = strconv.AppendBool(w.b, on)
		w.b = append(w.b, `,"preserve_thinking":true}`...)
	case thinkingDeepSeek:
		w.key("thinking")
		if on {
			w.b = append(w.b, `{"type":"enabled"}`...)
			v, _ := effortValue(m, c, level)
			w.key("reasoning_effort")
			w.str(v)
		} else {
			w.b = append(w.b, `{"type":"disabled"}`...)
		}
	case thinkingOpenRouter:
		if on {
			v, _ := effortValue(m, c, level)
			w.key("reasoning")
			w.b = append(w.b, `{"effort":`...)
			w.str(v)
			w.b = append(w.b, '}')
		} else if off, present := m.ThinkingLevelMap[provider.ThinkingOff]; !present || off != nil {
			v := "none"
			if present {
				v = *off
			}
			w.key("reasoning")
			w.b = append(w.b, `{"effort":`...)
			w.str(v)
			w.b = append(w.b, '}')
		}
	default:
		if !c.supportsReasoningEffort {
			return
		}
		if on {
			v, _ := effortValue(m, c, level)
			w.key("reasoning_effort")
			w.str(v)
		} else if off := m.ThinkingLevelMap[provider.ThinkingOff]; off != nil {
			w.key("reasoning_effort")
			w.str(*off)
		}
	}
}

// applyCacheControl marks the system prompt and the last user or assistant text for Anthropic's
// prompt cache (the last tool is marked by the tool writer).
func applyCacheControl(msgs []wireMessage) {
	for i := range msgs {
		if msgs[i].role == "system" || msgs[i].role == "developer" {
			markLastText(&msgs[i].content)
			break
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if (msgs[i].role == "user" || msgs[i].role == "assistant") && markLastText(&msgs[i].content) {
			return
		}
	}
}

func markLastText(c *wireContent) bool {
	if c.isString {
		if c.str == "" {
			return false
		}
		*c = wireContent{parts: []wirePart{{text: c.str, cache: true}}}
		return true
	}
	for i := len(c.parts) - 1; i >= 0; i-- {
		if !c.parts[i].image {
			c.parts[i].cache = true
			return true
		}
	}
	return false
}

// jsonWriter appends JSON as JSON.stringify writes it.
type jsonWriter struct {
	b []byte
}

// key starts a member of the object being written, with a comma unless it is the first.
func (w *jsonWriter) key(k string) {
	if w.b[len(w.b)-1] != '{' && w.b[len(w.b)-1] != '[' {
		w.b = append(w.b, ',')
	}
	w.b = provider.AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) str(s string) { w.b = provider.AppendJSONString(w.b, s) }

func (w *jsonWriter) content(c *wireContent) {
	switch {
	case c.isString:
		w.str(c.str)
	case c.null:
		w.b = append(w.b, "null"...)
	default:
		w.b = append(w.b, '[')
		for i, p := range c.parts {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if p.image {
				w.b = append(w.b, `{"type":"image_url","image_url":{"url":`...)
				w.str(p.text)
				w.b = append(w.b, "}}"...)
				continue
			}
			w.b = append(w.b, `{"type":"text","text":`...)
			w.str(p.text)
			if p.cache {
				w.b = append(w.b, `,"cache_control":{"type":"ephemeral"}`...)
			}
			w.b = append(w.b, '}')
		}
		w.b = append(w.b, ']')
	}
}

func (w *jsonWriter) message(m *wireMessage) {
	w.b = append(w.b, '{')
	w.key("role")
	w.str(m.role)
	w.key("content")
	w.content(&m.content)
	if m.reasoningField != "" {
		w.key(m.reasoningField)
		w.str(m.reasoningText)
	}
	if len(m.toolCalls) > 0 {
		w.key("tool_calls")
		w.b = append(w.b, '[')
		for i, tc := range m.toolCalls {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, `{"id":`...)
			w.str(tc.id)
			w.b = append(w.b, `,"type":"function","function":{"name":`...)
			w.str(tc.name)
			w.b = append(w.b, `,"arguments":`...)
			w.str(tc.args)
			w.b = append(w.b, "}}"...)
		}
		w.b = append(w.b, ']')
	}
	if len(m.reasoningDetails) > 0 {
		w.key("reasoning_details")
		w.b = append(w.b, '[')
		for i, d := range m.reasoningDetails {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, d...)
		}
		w.b = append(w.b, ']')
	}
	if m.emptyReasoning {
		w.key("reasoning_content")
		w.str("")
	}
	if m.toolCallID != "" || m.role == "tool" {
		w.key("tool_call_id")
		w.str(m.toolCallID)
	}
	if m.name != "" {
		w.key("name")
		w.str(m.name)
	}
	w.b = append(w.b, '}')
}

func (w *jsonWriter) tool(t provider.ToolDefinition, c *compat, cache bool) error {
	w.b = append(w.b, `{"type":"function","function":{"name":`...)
	w.str(t.Name)
	w.key("description")
	w.str(t.Description)
	if params := bytes.TrimSpace(t.Parameters); len(params) > 0 {
		var compact bytes.Buffer
		if err := json.Compact(&compact, params); err != nil {
			return fmt.Errorf("tool %q has an invalid parameters schema: %w", t.Name, err)
		}
		w.key("parameters")
		w.b = append(w.b, compact.Bytes()...)
	}
	if c.supportsStrictMode {
		w.key("strict")
		w.b = append(w.b, "false"...)
	}
	w.b = append(w.b, '}')
	if cache {
		w.key("cache_control")
		w.b = append(w.b, `{"type":"ephemeral"}`...)
	}
	w.b = append(w.b, '}')
	return nil
}
