package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// isPiBuiltinProvider reports whether pi 0.73.1 ships models for the provider. models.json treats
// these names as built-in (models without baseUrl/apiKey are allowed), even those pi-go has no
// catalogue for.
func isPiBuiltinProvider(name string) bool {
	switch name {
	case "amazon-bedrock", "anthropic", "azure-openai-responses", "cerebras", "cloudflare-ai-gateway",
		"cloudflare-workers-ai", "deepseek", "fireworks", "github-copilot", "google", "google-vertex", "groq",
		"huggingface", "kimi-coding", "minimax", "minimax-cn", "mistral", "moonshotai", "moonshotai-cn",
		"openai", "openai-codex", "opencode", "opencode-go", "openrouter", "vercel-ai-gateway", "xai",
		"xiaomi", "xiaomi-token-plan-ams", "xiaomi-token-plan-cn", "xiaomi-token-plan-sgp", "zai":
		return true
	}
	return false
}

// schemaProblem is one schema violation, with pi's dotted path ("providers.x.models.0.id").
type schemaProblem struct {
	path, msg string
}

func formatProblems(ps []schemaProblem) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = fmt.Sprintf("  - %s: %s", p.path, p.msg)
	}
	return strings.Join(lines, "\n")
}

// schemaChecker validates a decoded models.json (json.Number for numbers) against pi's schema. Keys
// pi does not know are allowed, as in pi.
type schemaChecker struct {
	problems []schemaProblem
}

func (c *schemaChecker) fail(path, msg string) {
	c.problems = append(c.problems, schemaProblem{path, msg})
}

func validateModelsSchema(doc any) []schemaProblem {
	c := &schemaChecker{}
	root, ok := doc.(map[string]any)
	if !ok {
		c.fail("root", "Expected object")
		return c.problems
	}
	provs, present := root["providers"]
	if !present {
		c.fail("providers", "Expected required property")
		return c.problems
	}
	pm, ok := provs.(map[string]any)
	if !ok {
		c.fail("providers", "Expected object")
		return c.problems
	}
	for _, name := range sortedKeys(pm) {
		c.provider("providers."+name, pm[name])
	}
	return c.problems
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *schemaChecker) object(path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "Expected object")
	}
	return m, ok
}

func (c *schemaChecker) provider(path string, v any) {
	p, ok := c.object(path, v)
	if !ok {
		return
	}
	for _, k := range []string{"name", "baseUrl", "apiKey", "api"} {
		c.nonEmptyString(path, p, k, false)
	}
	c.stringRecord(path, p, "headers")
	c.compat(path, p)
	c.boolean(path, p, "authHeader")
	if models, present := p["models"]; present {
		list, ok := models.([]any)
		if !ok {
			c.fail(path+".models", "Expected array")
		}
		for i, m := range list {
			c.modelDefinition(path+".models."+strconv.Itoa(i), m)
		}
	}
	if overrides, present := p["modelOverrides"]; present {
		if om, ok := c.object(path+".modelOverrides", overrides); ok {
			for _, id := range sortedKeys(om) {
				c.modelOverride(path+".modelOverrides."+id, om[id])
			}
		}
	}
}

func (c *schemaChecker) modelDefinition(path string, v any) {
	m, ok := c.object(path, v)
	if !ok {
		return
	}
	c.nonEmptyString(path, m, "id", true)
	for _, k := range []string{"name", "api", "baseUrl"} {
		c.nonEmptyString(path, m, k, false)
	}
	c.modelFields(path, m, true)
}

func (c *schemaChecker) modelOverride(path string, v any) {
	m, ok := c.object(path, v)
	if !ok {
		return
	}
	c.nonEmptyString(path, m, "name", false)
	c.modelFields(path, m, false)
}

// modelFields checks the fields definitions and overrides share; a definition's cost needs all four
// prices, an override's any of them.
func (c *schemaChecker) modelFields(path string, m map[string]any, fullCost bool) {
	c.boolean(path, m, "reasoning")
	c.thinkingLevelMap(path, m)
	if in, present := m["input"]; present {
		list, ok := in.([]any)
		if !ok {
			c.fail(path+".input", "Expected array")
		}
		for i, item := range list {
			if s, _ := item.(string); s != "text" && s != "image" {
				c.fail(fmt.Sprintf("%s.input.%d", path, i), `Expected "text" or "image"`)
			}
		}
	}
	if cost, present := m["cost"]; present {
		if cm, ok := c.object(path+".cost", cost); ok {
			for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
				c.number(path+".cost", cm, k, fullCost)
			}
		}
	}
	c.integer(path, m, "contextWindow")
	c.integer(path, m, "maxTokens")
	c.stringRecord(path, m, "headers")
	c.compat(path, m)
}

func (c *schemaChecker) nonEmptyString(path string, m map[string]any, key string, required bool) {
	v, present := m[key]
	if !present {
		if required {
			c.fail(path+"."+key, "Expected required property")
		}
		return
	}
	s, ok := v.(string)
	switch {
	case !ok:
		c.fail(path+"."+key, "Expected string")
	case s == "":
		c.fail(path+"."+key, "Expected string length greater or equal to 1")
	}
}

func (c *schemaChecker) boolean(path string, m map[string]any, key string) {
	if v, present := m[key]; present {
		if _, ok := v.(bool); !ok {
			c.fail(path+"."+key, "Expected boolean")
		}
	}
}

func (c *schemaChecker) number(path string, m map[string]any, key string, required bool) {
	v, present := m[key]
	if !present {
		if required {
			c.fail(path+"."+key, "Expected required property")
		}
		return
	}
	if _, ok := v.(json.Number); !ok {
		c.fail(path+"."+key, "Expected number")
	}
}

// integer accepts a JSON number written as an integer (128000, not 128000.0 or 1.28e5).
func (c *schemaChecker) integer(path string, m map[string]any, key string) {
	v, present := m[key]
	if !present {
		return
	}
	n, ok := v.(json.Number)
	if !ok {
		c.fail(path+"."+key, "Expected number")
		return
	}
	if _, err := n.Int64(); err != nil {
		c.fail(path+"."+key, "Expected integer")
	}
}

func (c *schemaChecker) stringRecord(path string, m map[string]any, key string) {
	v, present := m[key]
	if !present {
		return
	}
	rec, ok := c.object(path+"."+key, v)
	if !ok {
		return
	}
	for _, k := range sortedKeys(rec) {
		if _, ok := rec[k].(string); !ok {
			c.fail(path+"."+key+"."+k, "Expected string")
		}
	}
}

func (c *schemaChecker) thinkingLevelMap(path string, m map[string]any) {
	v, present := m["thinkingLevelMap"]
	if !present {
		return
	}
	tm, ok := c.object(path+".thinkingLevelMap", v)
	if !ok {
		return
	}
	for _, k := range sortedKeys(tm) {
		p := path + ".thinkingLevelMap." + k
		if !isThinkingLevelName(k) {
			c.fail(p, "Unknown thinking level (valid: off, minimal, low, medium, high, xhigh, max)")
			continue
		}
		if _, isStr := tm[k].(string); !isStr && tm[k] != nil {
			c.fail(p, "Expected string or null")
		}
	}
}

func isThinkingLevelName(s string) bool {
	for _, l := range []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"} {
		if s == l {
			return true
		}
	}
	return false
}

// compat checks the OpenAI-completions compat fields pi-go reads; others (e.g. openRouterRouting)
// are accepted and ignored.
func (c *schemaChecker) compat(path string, m map[string]any) {
	v, present := m["compat"]
	if !present {
		return
	}
	cm, ok := c.object(path+".compat", v)
	if !ok {
		return
	}
	p := path + ".compat"
	for _, k := range []string{"supportsStore", "supportsDeveloperRole", "supportsReasoningEffort",
		"supportsUsageInStreaming", "requiresToolResultName", "requiresAssistantAfterToolResult",
		"requiresThinkingAsText", "supportsStrictMode", "supportsXhigh"} {
		c.boolean(p, cm, k)
	}
	c.oneOf(p, cm, "maxTokensField", "max_completion_tokens", "max_tokens")
	c.oneOf(p, cm, "thinkingFormat", "openai", "openrouter", "deepseek", "zai", "qwen", "qwen-chat-template")
	c.stringRecord(p, cm, "reasoningEffortMap")
	c.stringRecord(p, cm, "thinkingLevelMap")
}

func (c *schemaChecker) oneOf(path string, m map[string]any, key string, allowed ...string) {
	v, present := m[key]
	if !present {
		return
	}
	s, _ := v.(string)
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	c.fail(path+"."+key, fmt.Sprintf("Expected one of %q", allowed))
}
