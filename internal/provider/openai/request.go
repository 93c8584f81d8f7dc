package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/lazyregexp"
	"github.com/pi-go/pi-go/internal/provider"
)

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

var nonIDChars = lazyregexp.New(`[^a-zA-Z0-9_-]`)

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
	cv := converter{m: m, c: c}
	if sys, ok := systemMessage(req, c); ok {
		cv.out = append(cv.out, sys)
	}
	cv.run(provider.TransformMessages(req.Messages, m, normalizeToolCallID(m)), nil)
	return cv.out
}

// systemMessage is the system prompt as the first chat message (false when there is none).
func systemMessage(req *provider.Request, c *compat) (wireMessage, bool) {
	if req.SystemPrompt == "" {
		return wireMessage{}, false
	}
	role := "system"
	if req.Model.Reasoning && c.supportsDeveloperRole {
		role = "developer"
	}
	return wireMessage{role: role, content: wireContent{isString: true, str: req.SystemPrompt}}, true
}

// converter appends transformed transcript messages to out as chat messages. Its only state
// between messages is lastRole, so a conversion can resume after any user message (convcache.go).
type converter struct {
	m        *provider.Model
	c        *compat
	out      []wireMessage
	lastRole string
}

// run converts msgs (the output of provider.TransformMessages), calling afterUser, when not nil,
// after each user message.
func (cv *converter) run(msgs []provider.Message, afterUser func()) {
	m, c := cv.m, cv.c
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		if c.requiresAssistantAfterToolResult && cv.lastRole == provider.RoleToolResult && msg.Role() == provider.RoleUser {
			cv.out = append(cv.out, wireMessage{role: "assistant", content: wireContent{isString: true, str: processedToolResults}})
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			if wm, ok := convertUser(msg); ok {
				cv.out = append(cv.out, wm)
				cv.lastRole = provider.RoleUser
			}
			if afterUser != nil {
				afterUser()
			}
			continue
		case *provider.AssistantMessage:
			wm, ok := convertAssistant(msg, m, c)
			if !ok {
				continue
			}
			cv.out = append(cv.out, wm)
		case *provider.ToolResultMessage:
			j := i
			var images []wirePart
			for ; j < len(msgs); j++ {
				tr, ok := msgs[j].(*provider.ToolResultMessage)
				if !ok {
					break
				}
				text := joinedText(tr.Content)
				if text == "" {
					text = seeAttachedImage
				}
				wm := wireMessage{role: "tool", content: wireContent{isString: true, str: text}, toolCallID: tr.ToolCallID}
				if c.requiresToolResultName && tr.ToolName != "" {
					wm.name = tr.ToolName
				}
				cv.out = append(cv.out, wm)
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
					cv.out = append(cv.out, wireMessage{role: "assistant", content: wireContent{isString: true, str: processedToolResults}})
				}
				parts := append([]wirePart{{text: attachedImages}}, images...)
				cv.out = append(cv.out, wireMessage{role: "user", content: wireContent{parts: parts}})
				cv.lastRole = provider.RoleUser
			} else {
				cv.lastRole = provider.RoleToolResult
			}
			continue
		default:
			// Other roles are converted by the caller; anything left is not sent.
		}
		cv.lastRole = msg.Role()
	}
}

// joinedText is provider.TextOf(content, "\n") without copying the usual single text block.
func joinedText(content []provider.Content) string {
	var only *provider.Content
	for i := range content {
		if content[i].Type == provider.ContentText {
			if only != nil {
				return provider.TextOf(content, "\n")
			}
			only = &content[i]
		}
	}
	if only == nil {
		return ""
	}
	return only.Text
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
	var thinking []provider.Content
	for _, b := range msg.Content {
		switch b.Type {
		case provider.ContentText:
			if strings.TrimSpace(b.Text) != "" {
				textParts = append(textParts, wirePart{text: b.Text})
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
		if len(textParts) > 0 {
			wm.content = wireContent{isString: true, str: concatText(textParts)}
		}
		if sig := thinking[0].ThinkingSignature; sig != "" && !reservedFields[sig] {
			joined := make([]string, len(thinking))
			for i, b := range thinking {
				joined[i] = b.Thinking
			}
			wm.reasoningField = sig
			wm.reasoningText = strings.Join(joined, "\n")
		}
	case len(textParts) > 0:
		wm.content = wireContent{isString: true, str: concatText(textParts)}
	}
	for _, b := range msg.Content {
		if b.Type != provider.ContentToolCall {
			continue
		}
		args := compactArgs(b.Arguments)
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

// compactArgs is a tool call's arguments as sent: compact JSON, or "{}" when they are missing or not
// JSON. Arguments are usually compact already (pi-go writes them so); they are then only checked.
func compactArgs(raw json.RawMessage) string {
	a := bytes.TrimSpace(raw)
	if len(a) == 0 {
		return "{}"
	}
	if !jsonx.Valid(a) {
		return "{}"
	}
	if isCompactJSON(a) {
		// Shared, not copied: a message's arguments are never written once it is built, and a resumed
		// session's calls would otherwise exist twice for as long as a request holds them (5 MB of
		// the 50 MB benchmark session).
		return unsafe.String(unsafe.SliceData(a), len(a))
	}
	var compact bytes.Buffer
	if json.Compact(&compact, a) != nil {
		return "{}"
	}
	return compact.String()
}

// isCompactJSON reports whether valid JSON has no whitespace outside its strings.
func isCompactJSON(a []byte) bool {
	for i := 0; i < len(a); i++ {
		switch a[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			for i++; i < len(a) && a[i] != '"'; i++ {
				if a[i] == '\\' {
					i++
				}
			}
		}
	}
	return true
}

// concatText joins the texts of parts with nothing between them (one part is not copied).
func concatText(parts []wirePart) string {
	if len(parts) == 1 {
		return parts[0].text
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	return b.String()
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
