package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/blockstream"
)

// minOutputTokens: OpenAI Responses rejects max_output_tokens below 16 (pi clamps to it).
const minOutputTokens = 16

// toolCallProviders are the providers whose tool-call ids carry a Responses item id after a "|"
// (pi's OPENAI_TOOL_CALL_PROVIDERS).
var toolCallProviders = map[string]bool{"openai": true, "openai-codex": true, "opencode": true}

// requestBody is the JSON pi 1.6 sends, member for member and in its order.
type requestBody struct {
	Model           string          `json:"model"`
	Input           []any           `json:"input"`
	Stream          bool            `json:"stream"`
	PromptCacheKey  string          `json:"prompt_cache_key,omitempty"`
	Store           bool            `json:"store"`
	MaxOutputTokens int             `json:"max_output_tokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	Tools           []functionTool  `json:"tools,omitempty"`
	Reasoning       *reasoningParam `json:"reasoning,omitempty"`
	Include         []string        `json:"include,omitempty"`
}

type reasoningParam struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary,omitempty"`
}

type functionTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// The input items, each with pi's members in pi's order.
type (
	instructionItem struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	userItem struct {
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	inputText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	inputImage struct {
		Type     string `json:"type"`
		Detail   string `json:"detail"`
		ImageURL string `json:"image_url"`
	}
	messageItem struct {
		Type    string       `json:"type"`
		Role    string       `json:"role"`
		Content []outputText `json:"content"`
		Status  string       `json:"status"`
		ID      string       `json:"id"`
		Phase   string       `json:"phase,omitempty"`
	}
	outputText struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Annotations []any  `json:"annotations"`
	}
	functionCallItem struct {
		Type      string `json:"type"`
		ID        string `json:"id,omitempty"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	functionOutputItem struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output any    `json:"output"` // a string, or parts when images go back
	}
)

// buildBody returns the request body for req (pi's buildParams with the default compat: no strict
// tools, no grammar tools, no mid-conversation system messages).
func buildBody(req *provider.Request) ([]byte, error) {
	m := req.Model
	input, err := convertMessages(req)
	if err != nil {
		return nil, err
	}
	body := requestBody{Model: m.ID, Input: input, Stream: true, PromptCacheKey: clampCacheKey(req.Options.SessionID)}
	if limit := blockstream.OutputLimit(req); limit > 0 {
		body.MaxOutputTokens = max(limit, minOutputTokens)
	}
	body.Temperature = req.Options.Temperature
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage("{}")
		}
		body.Tools = append(body.Tools, functionTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	if m.Reasoning {
		level := effectiveLevel(m, req.Options.Reasoning)
		switch {
		case level != provider.ThinkingOff:
			effort := string(level)
			if v, ok := m.ThinkingLevelMap[level]; ok && v != nil {
				effort = *v
			}
			body.Reasoning = &reasoningParam{Effort: effort, Summary: "auto"}
			body.Include = []string{"reasoning.encrypted_content"}
		default:
			// pi asks a reasoning model not to reason, unless its map marks "off" unsupported (null).
			if v, ok := m.ThinkingLevelMap[provider.ThinkingOff]; !ok || v != nil {
				effort := "none"
				if ok {
					effort = *v
				}
				if m.Provider != "github-copilot" {
					body.Reasoning = &reasoningParam{Effort: effort}
				}
			}
		}
		if m.Provider == "xai" {
			body.Include = []string{"reasoning.encrypted_content"}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as JSON.stringify writes <, > and &
	if err := enc.Encode(&body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// effectiveLevel is the level sent: "" is off; others are clamped to what the model supports.
func effectiveLevel(m *provider.Model, level provider.ThinkingLevel) provider.ThinkingLevel {
	if level == "" || level == provider.ThinkingOff {
		return provider.ThinkingOff
	}
	return provider.ClampThinkingLevel(m, level)
}

// clampCacheKey keeps the first 64 characters of the session id (OpenAI's limit).
func clampCacheKey(key string) string {
	if utf8.RuneCountInString(key) <= 64 {
		return key
	}
	return string([]rune(key)[:64])
}

var nonIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// normalizeIDPart makes an id part acceptable: other characters become "_", at most 64 characters,
// no trailing "_".
func normalizeIDPart(part string) string {
	s := nonIDChars.ReplaceAllString(part, "_")
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.TrimRight(s, "_")
}

// toolCallIDNormalizer is pi's normalizeToolCallId for replies of other models: the call id and item
// id of "call|item" are made acceptable, and an item id from another provider or API is replaced by
// "fc_<hash>" (OpenAI pairs item ids with its own reasoning items). foreign holds the ids of the tool
// calls whose reply came from another provider or API.
func toolCallIDNormalizer(m *provider.Model, foreign map[string]bool) func(string) string {
	return func(id string) string {
		callID, itemID, ok := strings.Cut(id, "|")
		if !toolCallProviders[m.Provider] || !ok {
			return normalizeIDPart(id)
		}
		if i := strings.IndexByte(itemID, '|'); i >= 0 {
			itemID = itemID[:i] // JavaScript's split keeps only the first two parts here
		}
		var item string
		if foreign[id] {
			item = "fc_" + shortHash(itemID)
			if len(item) > 64 {
				item = item[:64]
			}
		} else {
			item = normalizeIDPart(itemID)
		}
		if !strings.HasPrefix(item, "fc_") {
			item = normalizeIDPart("fc_" + item)
		}
		return normalizeIDPart(callID) + "|" + item
	}
}

// convertMessages is pi's convertResponsesMessages: the system prompt as a developer (reasoning
// models) or system message, then the transcript as input items.
func convertMessages(req *provider.Request) ([]any, error) {
	m := req.Model
	foreign := map[string]bool{}
	for _, msg := range req.Messages {
		if a, ok := msg.(*provider.AssistantMessage); ok && (a.Provider != m.Provider || a.API != m.API) {
			for _, c := range a.Content {
				if c.Type == provider.ContentToolCall {
					foreign[c.ID] = true
				}
			}
		}
	}
	msgs := provider.TransformMessages(req.Messages, m, toolCallIDNormalizer(m, foreign))
	input := make([]any, 0, len(msgs)+1)
	if req.SystemPrompt != "" {
		role := "system"
		if m.Reasoning && (m.Compat == nil || provider.Bool(m.Compat.SupportsDeveloperRole, true)) {
			role = "developer"
		}
		input = append(input, instructionItem{Role: role, Content: req.SystemPrompt})
	}
	images := m.SupportsImages()
	msgIndex := 0
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *provider.UserMessage:
			parts := make([]any, 0, len(msg.Content))
			for _, c := range msg.Content {
				switch c.Type {
				case provider.ContentText:
					parts = append(parts, inputText{Type: "input_text", Text: c.Text})
				case provider.ContentImage:
					parts = append(parts, imagePart(c))
				}
			}
			if len(parts) == 0 {
				continue
			}
			input = append(input, userItem{Role: "user", Content: parts})
		case *provider.AssistantMessage:
			items, err := convertAssistant(msg, m, msgIndex)
			if err != nil {
				return nil, err
			}
			if len(items) == 0 {
				continue
			}
			input = append(input, items...)
		case *provider.ToolResultMessage:
			callID, _, _ := strings.Cut(msg.ToolCallID, "|")
			input = append(input, functionOutputItem{Type: "function_call_output", CallID: callID,
				Output: toolResultOutput(msg.Content, images)})
		default:
			continue
		}
		msgIndex++
	}
	return input, nil
}

func imagePart(c provider.Content) inputImage {
	return inputImage{Type: "input_image", Detail: "auto", ImageURL: "data:" + c.MimeType + ";base64," + c.Data}
}

// convertAssistant replays one reply: reasoning items as the server sent them (kept in the thinking
// block's signature), text as assistant messages under their item id, tool calls as function calls.
func convertAssistant(msg *provider.AssistantMessage, m *provider.Model, msgIndex int) ([]any, error) {
	sameProviderAndAPI := msg.Provider == m.Provider && msg.API == m.API
	differentModel := sameProviderAndAPI && msg.Model != m.ID
	var out []any
	textIndex := 0
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentThinking:
			if c.ThinkingSignature == "" {
				continue
			}
			var item bytes.Buffer
			if err := json.Compact(&item, []byte(c.ThinkingSignature)); err != nil {
				return nil, fmt.Errorf("reasoning item of a %s reply is not JSON: %w", msg.Model, err)
			}
			out = append(out, json.RawMessage(item.Bytes()))
		case provider.ContentText:
			id, phase := parseTextSignature(c.TextSignature)
			switch {
			case id == "" && textIndex == 0:
				id = "msg_pi_" + strconv.Itoa(msgIndex)
			case id == "":
				id = "msg_pi_" + strconv.Itoa(msgIndex) + "_" + strconv.Itoa(textIndex)
			case len(id) > 64:
				id = "msg_" + shortHash(id)
			}
			textIndex++
			out = append(out, messageItem{Type: "message", Role: "assistant",
				Content: []outputText{{Type: "output_text", Text: c.Text, Annotations: []any{}}},
				Status:  "completed", ID: id, Phase: phase})
		case provider.ContentToolCall:
			callID, itemID, _ := strings.Cut(c.ID, "|")
			if i := strings.IndexByte(itemID, '|'); i >= 0 {
				itemID = itemID[:i]
			}
			// A different model's item ids were paired with its own reasoning items; without the id
			// OpenAI does not check the pairing.
			if differentModel || !strings.HasPrefix(itemID, "fc_") {
				itemID = ""
			}
			var args bytes.Buffer
			if err := json.Compact(&args, nonEmpty(c.Arguments)); err != nil {
				return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
			}
			out = append(out, functionCallItem{Type: "function_call", ID: itemID, CallID: callID, Name: c.Name,
				Arguments: args.String()})
		}
	}
	return out, nil
}

func nonEmpty(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// parseTextSignature reads a text block's signature: pi's {"v":1,"id":…,"phase":…} or a bare item id.
func parseTextSignature(sig string) (id, phase string) {
	if sig == "" {
		return "", ""
	}
	if strings.HasPrefix(sig, "{") {
		var p struct {
			V     json.Number `json:"v"`
			ID    *string     `json:"id"`
			Phase string      `json:"phase"`
		}
		if json.Unmarshal([]byte(sig), &p) == nil && p.V == "1" && p.ID != nil {
			if p.Phase != "commentary" && p.Phase != "final_answer" {
				p.Phase = ""
			}
			return *p.ID, p.Phase
		}
	}
	return sig, ""
}

// encodeTextSignature is pi's encodeTextSignatureV1.
func encodeTextSignature(id, phase string) string {
	b := []byte(`{"v":1,"id":`)
	b, _ = appendJSONString(b, id)
	if phase != "" {
		b = append(b, `,"phase":`...)
		b, _ = appendJSONString(b, phase)
	}
	return string(append(b, '}'))
}

func appendJSONString(b []byte, s string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// toolResultOutput is a tool result as Responses takes it: the text, or parts with the images when the
// model accepts images.
func toolResultOutput(content []provider.Content, images bool) any {
	var texts []string
	var imgs []provider.Content
	for _, c := range content {
		switch c.Type {
		case provider.ContentText:
			texts = append(texts, c.Text)
		case provider.ContentImage:
			imgs = append(imgs, c)
		}
	}
	text := strings.Join(texts, "\n")
	hasText := strings.TrimSpace(text) != ""
	if len(imgs) == 0 || !images {
		switch {
		case hasText:
			return text
		case len(imgs) > 0:
			return "(see attached image)"
		}
		return "(no tool output)"
	}
	parts := make([]any, 0, len(imgs)+1)
	if hasText {
		parts = append(parts, inputText{Type: "input_text", Text: text})
	}
	for _, img := range imgs {
		parts = append(parts, imagePart(img))
	}
	return parts
}

// shortHash is pi's shortHash: two 32-bit multiplicative hashes over the UTF-16 code units, in base 36.
func shortHash(s string) string {
	h1, h2 := uint32(0xdeadbeef), uint32(0x41c6ce57)
	for _, ch := range utf16Units(s) {
		h1 = (h1 ^ uint32(ch)) * 2654435761
		h2 = (h2 ^ uint32(ch)) * 1597334677
	}
	h1 = (h1^h1>>16)*2246822507 ^ (h2^h2>>13)*3266489909
	h2 = (h2^h2>>16)*2246822507 ^ (h1^h1>>13)*3266489909
	return strconv.FormatUint(uint64(h2), 36) + strconv.FormatUint(uint64(h1), 36)
}

func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}
