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

// buildConfig is the SDK's config for req (pi's buildParams but the contents, which contents.go
// writes).
func buildConfig(req *provider.Request) (*genai.GenerateContentConfig, error) {
	m := req.Model
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
				return nil, fmt.Errorf("Tool %q requires JSON-schema constrained sampling, but this model or schema does not support it", t.Name)
			}
			if schema == nil {
				if err := json.Unmarshal(params, &schema); err != nil {
					return nil, fmt.Errorf("tool %s parameters: %w", t.Name, err)
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
		return nil, err
	}
	cfg.ThinkingConfig = thinking
	return cfg, nil
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
