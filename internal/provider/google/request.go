package google

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/blockstream"
	"github.com/pi-go/pi-go/internal/provider/strictschema"
)

var geminiVersion = regexp.MustCompile(`^gemini(?:-live)?-(\d+)`)

// geminiMajor is the major version of a Gemini model id, or 0.
func geminiMajor(id string) int {
	m := geminiVersion.FindStringSubmatch(strings.ToLower(id))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// requiresToolCallID: models behind Google's APIs that need explicit ids on function calls and
// responses (pi's requiresToolCallId).
func requiresToolCallID(id string) bool {
	return strings.HasPrefix(id, "claude-") || strings.HasPrefix(id, "gpt-oss-") || geminiMajor(id) >= 3
}

// multimodalFunctionResponses: Gemini 3 takes images inside a function response; older Geminis get
// them in a user turn after it.
func multimodalFunctionResponses(id string) bool {
	if v := geminiMajor(id); v != 0 {
		return v >= 3
	}
	return true
}

var nonIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// buildRequest converts req into the SDK's contents and config (pi's buildParams).
func buildRequest(req *provider.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	m := req.Model
	contents, err := convertMessages(req)
	if err != nil {
		return nil, nil, err
	}
	cfg := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}
	if t := req.Options.Temperature; t != nil {
		cfg.Temperature = genai.Ptr(float32(*t))
	}
	if limit := blockstream.OutputLimit(req); limit > 0 {
		cfg.MaxOutputTokens = int32(min(limit, 1<<31-1))
	}
	if req.SystemPrompt != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.SystemPrompt}}, Role: "user"}
	}
	if len(req.Tools) > 0 {
		strictOK := geminiMajor(m.ID) >= 3 // Gemini 3 enforces required parameters in VALIDATED mode
		anyStrict := false
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			params := t.Parameters
			if len(bytes.TrimSpace(params)) == 0 {
				params = json.RawMessage("{}")
			}
			var schema any
			prefer, require := strictschema.Wanted(t.ConstrainedSampling)
			if prefer && strictOK {
				if s, ok := strictSchema(params); ok {
					schema, anyStrict = s, true
				}
			}
			if schema == nil && require {
				return nil, nil, fmt.Errorf("Tool %q requires JSON-schema constrained sampling, but this model or schema does not support it", t.Name)
			}
			if schema == nil {
				if err := json.Unmarshal(params, &schema); err != nil {
					return nil, nil, fmt.Errorf("tool %s parameters: %w", t.Name, err)
				}
			}
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description,
				ParametersJsonSchema: constAsEnum(schema, false)})
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		if anyStrict {
			cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
				Mode: genai.FunctionCallingConfigModeValidated}}
		}
	}
	thinking, err := thinkingConfig(m, req.Options.Reasoning)
	if err != nil {
		return nil, nil, err
	}
	cfg.ThinkingConfig = thinking
	return contents, cfg, nil
}

// convertMessages is pi's convertMessages for Gemini: text, thinking (as thought parts, with their
// signatures, for the model that wrote them) and function calls; tool results as function responses,
// consecutive ones in one user turn.
func convertMessages(req *provider.Request) ([]*genai.Content, error) {
	m := req.Model
	normalize := func(id string) string {
		if !requiresToolCallID(m.ID) {
			return id
		}
		s := nonIDChars.ReplaceAllString(id, "_")
		if len(s) > 64 {
			s = s[:64]
		}
		return s
	}
	msgs := provider.TransformMessages(req.Messages, m, normalize)
	withIDs := requiresToolCallID(m.ID)
	images := m.SupportsImages()
	var contents []*genai.Content
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *provider.UserMessage:
			var parts []*genai.Part
			for _, c := range msg.Content {
				switch c.Type {
				case provider.ContentText:
					parts = append(parts, &genai.Part{Text: c.Text})
				case provider.ContentImage:
					p, err := imagePart(c)
					if err != nil {
						return nil, err
					}
					parts = append(parts, p)
				}
			}
			if len(parts) == 0 {
				continue
			}
			contents = append(contents, &genai.Content{Role: "user", Parts: parts})
		case *provider.AssistantMessage:
			parts, err := assistantParts(msg, m, withIDs)
			if err != nil {
				return nil, err
			}
			if len(parts) == 0 {
				continue
			}
			contents = append(contents, &genai.Content{Role: "model", Parts: parts})
		case *provider.ToolResultMessage:
			var err error
			contents, err = appendToolResult(contents, msg, m, images, withIDs)
			if err != nil {
				return nil, err
			}
		}
	}
	return contents, nil
}

func imagePart(c provider.Content) (*genai.Part, error) {
	data, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return nil, fmt.Errorf("image data is not base64: %w", err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: c.MimeType, Data: data}}, nil
}

var base64Signature = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)

// signature decodes a thought signature the model may see again: one of its own, valid base64.
func signature(same bool, sig string) []byte {
	if !same || sig == "" || len(sig)%4 != 0 || !base64Signature.MatchString(sig) {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return nil
	}
	return b
}

func assistantParts(msg *provider.AssistantMessage, m *provider.Model, withIDs bool) ([]*genai.Part, error) {
	same := msg.Provider == m.Provider && msg.Model == m.ID
	var parts []*genai.Part
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			sig := signature(same, c.TextSignature)
			// An empty text carrying a signature goes back: Gemini wants its signatures echoed.
			if strings.TrimSpace(c.Text) == "" && sig == nil {
				continue
			}
			parts = append(parts, &genai.Part{Text: c.Text, ThoughtSignature: sig})
		case provider.ContentThinking:
			if !same {
				if strings.TrimSpace(c.Thinking) != "" {
					parts = append(parts, &genai.Part{Text: c.Thinking})
				}
				continue
			}
			sig := signature(same, c.ThinkingSignature)
			if strings.TrimSpace(c.Thinking) == "" && sig == nil {
				continue
			}
			parts = append(parts, &genai.Part{Thought: true, Text: c.Thinking, ThoughtSignature: sig})
		case provider.ContentToolCall:
			args := map[string]any{}
			if raw := bytes.TrimSpace(c.Arguments); len(raw) > 0 {
				if err := json.Unmarshal(raw, &args); err != nil {
					return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
				}
			}
			call := &genai.FunctionCall{Name: c.Name, Args: args}
			if withIDs {
				call.ID = c.ID
			}
			parts = append(parts, &genai.Part{FunctionCall: call, ThoughtSignature: signature(same, c.ThoughtSignature)})
		}
	}
	return parts, nil
}

// appendToolResult adds a function response, to the previous user turn when that one holds function
// responses already.
func appendToolResult(contents []*genai.Content, msg *provider.ToolResultMessage, m *provider.Model,
	images, withIDs bool) ([]*genai.Content, error) {
	var texts []string
	var imgs []*genai.Part
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			texts = append(texts, c.Text)
		case provider.ContentImage:
			if !images {
				continue
			}
			p, err := imagePart(c)
			if err != nil {
				return nil, err
			}
			imgs = append(imgs, p)
		}
	}
	text := strings.Join(texts, "\n")
	value := text
	if strings.TrimSpace(text) == "" {
		value = ""
		if len(imgs) > 0 {
			value = "(see attached image)"
		}
	}
	key := "output"
	if msg.IsError {
		key = "error"
	}
	resp := &genai.FunctionResponse{Name: msg.ToolName, Response: map[string]any{key: value}}
	nested := multimodalFunctionResponses(m.ID)
	if len(imgs) > 0 && nested {
		for _, p := range imgs {
			resp.Parts = append(resp.Parts, &genai.FunctionResponsePart{
				InlineData: &genai.FunctionResponseBlob{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}})
		}
	}
	if withIDs {
		resp.ID = msg.ToolCallID
	}
	part := &genai.Part{FunctionResponse: resp}
	if n := len(contents); n > 0 && contents[n-1].Role == "user" && hasFunctionResponse(contents[n-1]) {
		contents[n-1].Parts = append(contents[n-1].Parts, part)
	} else {
		contents = append(contents, &genai.Content{Role: "user", Parts: []*genai.Part{part}})
	}
	if len(imgs) > 0 && !nested {
		contents = append(contents, &genai.Content{Role: "user",
			Parts: append([]*genai.Part{{Text: "Tool result image:"}}, imgs...)})
	}
	return contents, nil
}

func hasFunctionResponse(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// Schema keywords whose values map names to subschemas, and those holding subschemas (pi's lists).
var (
	schemaNameMaps   = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true}
	schemaSubschemas = map[string]bool{"additionalProperties": true, "unevaluatedProperties": true, "propertyNames": true, "items": true, "prefixItems": true, "additionalItems": true, "unevaluatedItems": true, "contains": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true, "contentSchema": true}
)

// constAsEnum rewrites string and number consts as one-value enums: Gemini ignores const in
// parametersJsonSchema but honours enum.
func constAsEnum(schema any, nameMap bool) any {
	switch s := schema.(type) {
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = constAsEnum(v, false)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(s))
		for k, v := range s {
			switch {
			case nameMap || schemaSubschemas[k]:
				out[k] = constAsEnum(v, false)
			case schemaNameMaps[k]:
				out[k] = constAsEnum(v, true)
			default:
				out[k] = v
			}
		}
		if !nameMap {
			if c, ok := out["const"]; ok {
				if _, hasEnum := out["enum"]; !hasEnum {
					switch c.(type) {
					case string, float64, json.Number:
						delete(out, "const")
						out["enum"] = []any{c}
					}
				}
			}
		}
		return out
	}
	return schema
}

// usesThinkingLevel: Gemini 3 Pro/Flash, Gemini 4 and later, the -latest aliases and Gemma 4 take a
// thinking level; older models a token budget.
var thinkingLevelModels = regexp.MustCompile(`gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|gemma-?4`)

func usesThinkingLevel(m *provider.Model) bool {
	id := strings.ToLower(m.ID)
	return thinkingLevelModels.MatchString(id) || id == "gemini-flash-latest" || id == "gemini-flash-lite-latest"
}

// resolveLevel maps a level through the model's thinking-level map to one of Google's four.
func resolveLevel(m *provider.Model, level provider.ThinkingLevel) (string, error) {
	resolved := string(level)
	mapped, ok := m.ThinkingLevelMap[level]
	if ok && mapped != nil {
		resolved = strings.ToLower(*mapped)
	}
	switch resolved {
	case "minimal", "low", "medium", "high":
		return resolved, nil
	}
	shown := "undefined"
	switch {
	case ok && mapped == nil:
		shown = "null"
	case ok:
		shown = *mapped
	}
	return "", fmt.Errorf("Unsupported Google thinking level mapping for %s/%s: %s -> %s", m.Provider, m.ID, level, shown)
}

// thinkingConfig is pi's: a level or a budget when the user asks for thinking, the lowest setting the
// model allows when not; nil for a model without reasoning.
func thinkingConfig(m *provider.Model, level provider.ThinkingLevel) (*genai.ThinkingConfig, error) {
	if !m.Reasoning {
		return nil, nil
	}
	if level != "" && level != provider.ThinkingOff {
		level = provider.ClampThinkingLevel(m, level)
	}
	if level == "" || level == provider.ThinkingOff {
		if !usesThinkingLevel(m) {
			return &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](0)}, nil
		}
		fallback := provider.ClampThinkingLevel(m, provider.ThinkingOff)
		if fallback == provider.ThinkingOff {
			return &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](0)}, nil
		}
		resolved, err := resolveLevel(m, fallback)
		if err != nil {
			return nil, err
		}
		return &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(resolved))}, nil
	}
	resolved, err := resolveLevel(m, level)
	if err != nil {
		return nil, err
	}
	if usesThinkingLevel(m) {
		return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(resolved))}, nil
	}
	return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr(thinkingBudget(m.ID, resolved))}, nil
}

// thinkingBudget is pi's token budget per level for Gemini 2.5 models; -1 (dynamic) for others.
func thinkingBudget(id, level string) int32 {
	var budgets map[string]int32
	switch {
	case strings.Contains(id, "2.5-pro"):
		budgets = map[string]int32{"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
	case strings.Contains(id, "2.5-flash-lite"):
		budgets = map[string]int32{"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}
	case strings.Contains(id, "2.5-flash"):
		budgets = map[string]int32{"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}
	default:
		return -1
	}
	return budgets[level]
}
