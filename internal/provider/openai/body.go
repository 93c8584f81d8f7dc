package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// The request body is written here, field for field as pi 0.73.1 writes it, and sent as a
// requestBody, written while it is sent (bodystream.go). The package doc says why no SDK request
// struct is used: several of pi's fields cannot be said with one.

// newRequestBody converts the transcript and writes everything but the messages: the body's head (up
// to the messages array) and tail (after it). The messages are written to a spill in memory, to be
// copied out when the body is read.
func newRequestBody(req *provider.Request, c *compat) (*requestBody, error) {
	return newCachedRequestBody(req, c, nil)
}

// newCachedRequestBody is newRequestBody converting only what cache (nil: none) does not hold from
// the previous request, and leaving this request's conversion there. A cached conversion is written
// to a temporary file (spill.go); a conversion that cannot be written there is done again in memory.
func newCachedRequestBody(req *provider.Request, c *compat, cache *convCache) (*requestBody, error) {
	m := req.Model
	opts := &req.Options
	newSpill := provider.NewMemorySpill
	if cache != nil {
		newSpill = provider.NewSpillFile
	}
	st, err := cache.Take().convert(req, c, newSpill)
	if err != nil {
		if st, err = (*convState)(nil).convert(req, c, provider.NewMemorySpill); err != nil {
			return nil, err
		}
	}
	src, err := st.spill.Source()
	if err != nil {
		return nil, err
	}
	sys, hasSys := systemMessage(req, c)
	parts := make([]bodyPart, 0, 4)
	if hasSys {
		parts = append(parts, bodyPart{msg: &sys})
	}
	// The transcript's messages as runs of adjacent spilled ones; the one the cache marker goes on,
	// if any, written from its struct.
	marked := -1
	var markedMsg wireMessage
	if c.anthropicCacheControl {
		if hasSys {
			markLastText(&sys.content)
		}
		for i := len(st.wire) - 1; i >= 0; i-- {
			wm := st.wire[i]
			if (wm.role == "user" || wm.role == "assistant") && markLastText(&wm.content) {
				marked, markedMsg = i, wm
				break
			}
		}
	}
	for i, r := range st.msgs {
		if i == marked {
			parts = append(parts, bodyPart{msg: &markedMsg})
			continue
		}
		if n := len(parts); n > 0 && parts[n-1].msg == nil && parts[n-1].off+parts[n-1].n == r.Off {
			parts[n-1].n += r.N
			continue
		}
		parts = append(parts, bodyPart{off: r.Off, n: r.N})
	}
	cache.Keep(st)
	tools := len(req.Tools) > 0 || hasToolHistory(req.Messages)

	w := &jsonWriter{}
	w.b = append(w.b, '{')
	w.key("model")
	w.str(m.ID)
	w.key("messages")
	w.b = append(w.b, '[')
	head := w.b

	w = &jsonWriter{b: []byte{']'}}
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
	return newBody(head, src, parts, w.b), nil
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

// markLastText marks the last text of a message for Anthropic's prompt cache (the system prompt and
// the last user or assistant text are marked; the last tool by the tool writer). It reports whether
// there was a text to mark. The parts are copied first: the message shares them with the
// conversion cache.
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
			c.parts = slices.Clone(c.parts)
			c.parts[i].cache = true
			return true
		}
	}
	return false
}

// jsonWriter appends JSON as JSON.stringify writes it. With spill set, strings of spillMin bytes or
// more are not copied into b: they are recorded with the offset where they belong and escaped later,
// straight into the buffer of whoever reads the body (see bodyReader).
type jsonWriter struct {
	b     []byte
	spill bool
	long  []spilled
}

// spilled is a long string that belongs at offset at of the writer's bytes.
type spilled struct {
	at int
	s  string
}

// spillMin is the shortest string a spilling writer leaves out of its buffer.
const spillMin = 512

// reset empties the writer for the next message, keeping its buffers.
func (w *jsonWriter) reset() {
	w.b = w.b[:0]
	w.long = w.long[:0]
}

// last is the last byte written ('"' when it was a spilled string).
func (w *jsonWriter) last() byte {
	if n := len(w.long); n > 0 && w.long[n-1].at == len(w.b) {
		return '"'
	}
	return w.b[len(w.b)-1]
}

// key starts a member of the object being written, with a comma unless it is the first.
func (w *jsonWriter) key(k string) {
	if c := w.last(); c != '{' && c != '[' {
		w.b = append(w.b, ',')
	}
	w.b = jsonx.AppendString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) str(s string) {
	if w.spill && len(s) >= spillMin {
		w.long = append(w.long, spilled{at: len(w.b), s: s})
		return
	}
	w.b = jsonx.AppendString(w.b, s)
}

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
