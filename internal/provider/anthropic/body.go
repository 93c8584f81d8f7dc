package anthropic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/lazyregexp"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/strictschema"
)

// Beta features pi asks for, sent in the anthropic-beta header.
const (
	betaFineGrainedToolStreaming = "fine-grained-tool-streaming-2025-05-14"
	betaInterleavedThinking      = "interleaved-thinking-2025-05-14"
	betaServerSideFallback       = "server-side-fallback-2026-07-01"
	betaMidConversationOutput    = "mid-conversation-output-config-2026-07-01"
	betaThinkingBindingControls  = "thinking-binding-controls-2026-08-01"
	betaInlineTools              = "inline-tools-2026-09-15"
)

// Texts pi sends on the model's behalf.
const (
	seeAttachedImage      = "(see attached image)"
	errorImagePlaceholder = "(image attached after the tool results)"
	defaultThinkingBudget = 1024
	minAnswerTokens       = 1024
)

// placeholderTool is pi's deferred tool, declared whenever tool changes are native so that the
// scaffolding Anthropic adds for them is part of the cached prefix from the first request.
const placeholderTool = `{"name":"__pi_deferred_placeholder__","description":"Reserved placeholder. Never available. Never call this.","input_schema":{"type":"object","properties":{},"required":[]},"defer_loading":true}`

// compat is the resolved Anthropic compat of one model (pi's getAnthropicCompat).
type compat struct {
	eagerToolInputStreaming, longCacheRetention, cacheControlOnTools, temperature bool
	allowEmptySignature, strictTools, midConvoEffort, nativeToolChanges           bool
	forceAdaptive                                                                 bool
	fallbacks                                                                     []provider.FallbackModel
}

func resolveCompat(m *provider.Model) compat {
	c := m.Compat
	if c == nil {
		c = &provider.Compat{}
	}
	return compat{
		eagerToolInputStreaming: provider.Bool(c.SupportsEagerToolInputStreaming, true),
		longCacheRetention:      provider.Bool(c.SupportsLongCacheRetention, true),
		cacheControlOnTools:     provider.Bool(c.SupportsCacheControlOnTools, true),
		temperature:             provider.Bool(c.SupportsTemperature, true),
		allowEmptySignature:     provider.Bool(c.AllowEmptySignature, false),
		strictTools:             provider.Bool(c.SupportsStrictTools, false),
		midConvoEffort:          provider.Bool(c.SupportsMidConvoEffort, false),
		nativeToolChanges: provider.Bool(c.SupportsMidConvoSystemMessages, false) &&
			provider.Bool(c.SupportsMidConvoToolChanges, false),
		forceAdaptive: provider.Bool(c.ForceAdaptiveThinking, false),
		fallbacks:     c.AllowedFallbackModels,
	}
}

// CacheRetention is how long the prompt cache should keep the request's prefix (pi's cacheRetention):
// "short" (Anthropic's default five minutes), "long" (one hour, where the model supports it) or "none"
// (no cache_control breakpoints).
type CacheRetention string

const (
	CacheShort CacheRetention = "short"
	CacheLong  CacheRetention = "long"
	CacheNone  CacheRetention = "none"
)

// request is a built request: the body and the beta features for its header.
type request struct {
	body  []byte
	betas []string
	// effort is the level an effort-marker model was asked for (recorded on the answer as pi's
	// providerThinkingLevel); "" for other models.
	effort string
	// state owns body's array: it goes back to the body cache once the body is no longer read.
	state *bodyState
}

// thinkingPlan is what the thinking level turns into (pi's streamSimple).
type thinkingPlan struct {
	enabled   bool
	effort    string // adaptive models
	budget    int    // budget models
	maxTokens int
}

// budgets are pi's default thinking budgets per level (xhigh and max count as high).
var budgets = map[provider.ThinkingLevel]int{provider.ThinkingMinimal: 1024, provider.ThinkingLow: 2048,
	provider.ThinkingMedium: 8192, provider.ThinkingHigh: 16384}

func planThinking(m *provider.Model, c *compat, level provider.ThinkingLevel, maxTokens int) thinkingPlan {
	p := thinkingPlan{maxTokens: maxTokens}
	if level == "" || level == provider.ThinkingOff {
		return p
	}
	p.enabled = true
	if c.forceAdaptive {
		p.effort = effortFor(m, level)
		return p
	}
	budget := budgets[level]
	if level == provider.ThinkingXHigh || level == provider.ThinkingMax {
		budget = budgets[provider.ThinkingHigh]
	}
	p.maxTokens = min(maxTokens+budget, m.MaxTokens)
	if m.MaxTokens <= 0 {
		p.maxTokens = maxTokens + budget
	}
	if p.maxTokens <= budget {
		budget = min(budget, max(0, p.maxTokens-minAnswerTokens))
	}
	p.budget = budget
	return p
}

// effortFor maps a level to Anthropic's effort for adaptive thinking (pi's mapThinkingLevelToEffort).
func effortFor(m *provider.Model, level provider.ThinkingLevel) string {
	if v, ok := m.ThinkingLevelMap[level]; ok && v != nil {
		return *v
	}
	switch level {
	case provider.ThinkingMinimal, provider.ThinkingLow:
		return "low"
	case provider.ThinkingMedium:
		return "medium"
	}
	return "high"
}

var nonIDChars = lazyregexp.New(`[^a-zA-Z0-9_-]`)

// normalizeToolCallID makes another provider's tool-call id match Anthropic's pattern and length.
func normalizeToolCallID(id string) string {
	id = nonIDChars.ReplaceAllString(id, "_")
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// buildRequest writes the Messages request body as pi 1.6 does, key for key, from scratch.
func buildRequest(req *provider.Request, retention CacheRetention) (*request, error) {
	return buildCachedRequest(req, retention, nil)
}

// buildCachedRequest is buildRequest writing into st, the body of an earlier request (nil: none),
// whose messages it keeps as far as req's transcript shares them (see bodyCache).
func buildCachedRequest(req *provider.Request, retention CacheRetention, st *bodyState) (*request, error) {
	m := req.Model
	oauth := isOAuthToken(req.Options.APIKey)
	c := resolveCompat(m)
	var cacheControl string
	switch retention {
	case CacheNone:
	case CacheLong:
		if c.longCacheRetention {
			cacheControl = `{"type":"ephemeral","ttl":"1h"}`
		} else {
			cacheControl = `{"type":"ephemeral"}`
		}
	default:
		cacheControl = `{"type":"ephemeral"}`
	}
	maxTokens := req.Options.MaxTokens
	if maxTokens <= 0 {
		maxTokens = m.MaxTokens
	}
	maxTokens = provider.ClampMaxTokensToContext(req, maxTokens)
	plan := planThinking(m, &c, req.Options.Reasoning, maxTokens)
	if plan.enabled && !c.forceAdaptive {
		// The budget raised the ceiling: fit it into the window again, keeping room for the answer.
		plan.maxTokens = provider.ClampMaxTokensToContext(req, plan.maxTokens)
		plan.budget = min(plan.budget, max(0, plan.maxTokens-minAnswerTokens))
	}
	offMapped := true
	if v, ok := m.ThinkingLevelMap[provider.ThinkingOff]; ok && v == nil {
		offMapped = false
	}
	thinkingDisabled := m.Reasoning && !plan.enabled && offMapped
	effortMessages := c.midConvoEffort && !thinkingDisabled
	nativeTools := c.nativeToolChanges && len(req.Tools) > 0

	o := convertOptions{allowEmptySignature: c.allowEmptySignature, effort: effortMessages, oauth: oauth, providerName: m.Provider}
	key := bodyKey{provider: m.Provider, api: m.API, id: m.ID, images: m.SupportsImages(),
		allowEmptySignature: o.allowEmptySignature, effort: o.effort, oauth: oauth}
	st = st.writeMessages(req, key, o, cacheControl)
	activeEffort := plan.effort
	if activeEffort == "" {
		activeEffort = "high"
	}

	var betas []string
	if oauth {
		betas = append(betas, claudeCodeBetas...)
	}
	if len(req.Tools) > 0 && !c.eagerToolInputStreaming {
		betas = append(betas, betaFineGrainedToolStreaming)
	}
	if m.Reasoning && plan.enabled && !c.forceAdaptive {
		betas = append(betas, betaInterleavedThinking)
	}
	if len(c.fallbacks) > 0 {
		betas = append(betas, betaServerSideFallback)
	}
	if c.midConvoEffort {
		betas = append(betas, betaMidConversationOutput, betaThinkingBindingControls)
	}
	if nativeTools {
		betas = append(betas, betaInlineTools)
	}

	if effortMessages {
		st.comma()
		st.buf = appendEffortMarker(st.buf, activeEffort)
	}
	b := st.buf
	b = append(b, `],"max_tokens":`...)
	b = strconv.AppendInt(b, int64(plan.maxTokens), 10)
	b = append(b, `,"stream":true`...)
	var system []string
	if oauth {
		system = append(system, claudeCodeIdentity)
	}
	if req.SystemPrompt != "" {
		system = append(system, req.SystemPrompt)
	}
	if len(system) > 0 {
		b = append(b, `,"system":[`...)
		for i, text := range system {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = jsonx.AppendString(b, text)
			if cacheControl != "" {
				b = append(b, `,"cache_control":`...)
				b = append(b, cacheControl...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if t := req.Options.Temperature; t != nil && !plan.enabled && !c.midConvoEffort && c.temperature {
		b = append(b, `,"temperature":`...)
		b = jsonx.AppendNumber(b, *t)
	}
	if len(req.Tools) > 0 {
		var err error
		toolCache := ""
		if c.cacheControlOnTools {
			toolCache = cacheControl
		}
		b = append(b, `,"tools":[`...)
		for i := range req.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			last := i == len(req.Tools)-1
			if b, err = appendTool(b, &req.Tools[i], &c, last, toolCache, oauth); err != nil {
				return nil, err
			}
		}
		if nativeTools {
			b = append(b, ',')
			b = append(b, placeholderTool...)
		}
		b = append(b, ']')
	}
	switch {
	case thinkingDisabled:
		b = append(b, `,"thinking":{"type":"disabled"}`...)
	case effortMessages:
		b = append(b, `,"thinking":{"type":"adaptive","display":"summarized","block_binding":{"prefix_mismatch_behavior":"drop_block"}},"output_config":{"effort":"low"}`...)
	case m.Reasoning && plan.enabled && c.forceAdaptive:
		b = append(b, `,"thinking":{"type":"adaptive","display":"summarized"}`...)
		if plan.effort != "" {
			b = append(b, `,"output_config":{"effort":`...)
			b = jsonx.AppendString(b, plan.effort)
			b = append(b, '}')
		}
	case m.Reasoning && plan.enabled:
		budget := plan.budget
		if budget == 0 {
			budget = defaultThinkingBudget
		}
		b = append(b, `,"thinking":{"type":"enabled","budget_tokens":`...)
		b = strconv.AppendInt(b, int64(budget), 10)
		b = append(b, `,"display":"summarized"}`...)
	}
	if len(c.fallbacks) > 0 {
		b = append(b, `,"fallbacks":[`...)
		for i, f := range c.fallbacks {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"model":`...)
			b = jsonx.AppendString(b, f.Model)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	st.buf = b
	out := &request{body: b, betas: betas, state: st}
	if effortMessages {
		out.effort = activeEffort
	}
	return out, nil
}

func appendEffortMarker(b []byte, level string) []byte {
	b = append(b, `{"role":"system","content":[],"output_config":{"effort":`...)
	b = jsonx.AppendString(b, level)
	return append(b, `}}`...)
}

// appendTool writes one tool definition (pi's convertTools).
func appendTool(b []byte, t *provider.ToolDefinition, c *compat, last bool, cacheControl string, oauth bool) ([]byte, error) {
	params := t.Parameters
	if len(strings.TrimSpace(string(params))) == 0 {
		params = json.RawMessage(`{}`)
	}
	schema, err := strictschema.Parse(params)
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
	}
	strict := false
	var strictParams *strictschema.Node
	if wanted, _ := strictschema.Wanted(t.ConstrainedSampling); c.strictTools && wanted {
		if s, err := strictschema.Make(schema, anthropicStrictUnsupported); err == nil {
			strict, strictParams = true, s
		}
	}
	src := schema
	if strict {
		src = strictParams
	}
	// Only the keywords Anthropic accepts at the root; with strict, the strict schema's own keys come
	// first (JavaScript's spread keeps their places).
	input := strictschema.Object()
	if strict {
		input = strictParams.Clone()
	}
	props := src.Get("properties")
	if props == nil {
		props = strictschema.Object()
	}
	required := src.Get("required")
	if required == nil {
		required = strictschema.Value([]any{})
	}
	input.Set("type", strictschema.Value("object"))
	input.Set("properties", props)
	input.Set("required", required)
	for _, k := range []string{"additionalProperties", "$defs", "definitions"} {
		if v := src.Get(k); v != nil {
			input.Set(k, v)
		}
	}
	name := t.Name
	if oauth {
		name = toClaudeCodeName(name)
	}
	b = append(b, `{"name":`...)
	b = jsonx.AppendString(b, name)
	b = append(b, `,"description":`...)
	b = jsonx.AppendString(b, t.Description)
	if c.eagerToolInputStreaming {
		b = append(b, `,"eager_input_streaming":true`...)
	}
	if strict {
		b = append(b, `,"strict":true`...)
	}
	b = append(b, `,"input_schema":`...)
	b = input.AppendJSON(b)
	if last && cacheControl != "" {
		b = append(b, `,"cache_control":`...)
		b = append(b, cacheControl...)
	}
	return append(b, '}'), nil
}
