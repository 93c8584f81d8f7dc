package openai

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// reader turns the SSE events of one response into StreamBuilder calls.
type reader struct {
	b     *provider.StreamBuilder
	model *provider.Model
	sse   *sseReader
	dec   chunkDecoder

	// afterDone runs once [DONE] arrived, before the rest of the body is drained.
	afterDone func()
	// onContent runs for every chunk that carries content (see apply).
	onContent func()

	chunks   int
	sawDone  bool
	sawStop  bool // a finish_reason arrived
	gotID    bool
	gotModel bool
}

// finished reports whether the answer was complete (a finish reason or [DONE] arrived) before the
// stream broke: a drop after that point loses nothing but the usage chunk.
func (r *reader) finished() bool { return r.sawDone || r.sawStop }

// run reads the stream to its end; it returns the error text of a failed stream, or "".
func (r *reader) run() string {
	for {
		ev, err := r.sse.next()
		if err != nil {
			return r.end(err)
		}
		if isDone(ev.Data) {
			r.sawDone = true
			r.drain()
			return ""
		}
		r.chunks++
		if msg := r.event(ev); msg != "" {
			return msg
		}
	}
}

// drain reads what follows [DONE] (normally just the end of the body), as pi's SDK does, so that the
// connection can be reused; a server that keeps the stream open after [DONE] is given drainTimeout.
func (r *reader) drain() {
	if r.afterDone != nil {
		r.afterDone()
	}
	io.Copy(io.Discard, r.sse.r)
}

// end explains why the body ended; "" when it ended as a finished answer.
func (r *reader) end(err error) string {
	if r.finished() {
		return ""
	}
	if err != io.EOF {
		return fmt.Sprintf("Connection lost while streaming the answer: %v", err)
	}
	if !r.sse.sawData && len(r.sse.preamble) > 0 {
		return r.preamble()
	}
	return "Stream ended without a finish reason or [DONE]: the server closed the connection early"
}

// preamble handles a 2xx body that was not SSE: an error object, or a whole non-streaming completion
// from a server that ignored stream:true.
func (r *reader) preamble() string {
	p := r.sse.preamble
	r.dec.messageAsDelta = true
	c, err := r.dec.decode(p)
	if err != nil || !c.isObject {
		return "Stream ended without any data; the server sent " + describePreamble(p)
	}
	if len(c.Error) > 0 {
		return errorObjectText(c.Error)
	}
	if !c.HasChoice {
		return "Stream ended without any data; the server sent " + describePreamble(p)
	}
	r.apply(c)
	r.sawStop = true
	return ""
}

// event handles one data event.
func (r *reader) event(ev sseEvent) string {
	c, err := r.dec.decode(ev.Data)
	if string(ev.Name) == "error" {
		// An SSE error event: its data may be an error object or plain text.
		if err == nil && c.isObject && len(c.Error) > 0 {
			return errorObjectText(c.Error)
		}
		return "Stream error: " + plainText(ev.Data)
	}
	if err != nil {
		return fmt.Sprintf("Malformed JSON in stream chunk %d (%v): %s", r.chunks, err, excerpt(ev.Data))
	}
	if len(c.Error) > 0 {
		return errorObjectText(c.Error)
	}
	if !c.isObject {
		return ""
	}
	r.apply(c)
	return ""
}

func excerpt(b []byte) string {
	const limit = 200
	if len(b) > limit {
		return fmt.Sprintf("%q…", b[:limit])
	}
	return fmt.Sprintf("%q", b)
}

// apply feeds one decoded chunk to the builder, in pi's order.
func (r *reader) apply(c *chunk) {
	b := r.b
	if !r.gotID && len(c.ID) > 0 {
		// Every chunk repeats the id; the first one is kept (and converted once).
		r.gotID = true
		b.SetResponseID(string(c.ID))
	}
	if !r.gotModel && len(c.Model) > 0 && string(c.Model) != r.model.ID {
		r.gotModel = true
		b.SetResponseModel(string(c.Model))
	}
	if r.onContent != nil && hasContent(c) {
		r.onContent()
	}
	if c.HasUsage {
		b.SetUsage(usageFrom(&c.Usage, r.model))
	}
	if !c.HasChoice {
		return
	}
	if !c.HasUsage && c.HasChoiceUsage {
		b.SetUsage(usageFrom(&c.ChoiceUsage, r.model))
	}
	if len(c.FinishReason) > 0 {
		reason, errMsg := mapFinishReason(string(c.FinishReason))
		b.SetStopReason(string(c.FinishReason), reason, errMsg)
		r.sawStop = true
	}
	if len(c.Content) > 0 {
		b.Text(string(c.Content))
	}
	for i, field := range reasoningFields {
		if len(c.Reasoning[i]) > 0 {
			b.Thinking(string(c.Reasoning[i]), field)
			break
		}
	}
	for i := range c.ToolCalls {
		tc := &c.ToolCalls[i]
		var index *int
		if tc.HasIndex {
			idx := clampIndex(tc.Index)
			index = &idx
		}
		b.ToolCall(index, string(tc.ID), string(tc.Name), string(tc.Arguments))
	}
	for _, d := range c.ReasoningDetails {
		b.SetThoughtSignature(string(d.ID), compactJSON(d.Raw))
	}
}

// hasContent reports whether a chunk moves the answer on: text, thinking, a tool call, the finish
// reason or usage. A role-only or empty delta does not (some servers send them as keep-alives).
func hasContent(c *chunk) bool {
	if c.HasUsage || c.HasChoiceUsage || len(c.FinishReason) > 0 || len(c.Content) > 0 || len(c.ToolCalls) > 0 {
		return true
	}
	for _, r := range c.Reasoning {
		if len(r) > 0 {
			return true
		}
	}
	return false
}

func clampIndex(f float64) int {
	switch {
	case f != f: // NaN cannot come from JSON, but keep the conversion defined
		return 0
	case f > 1<<31:
		return 1 << 31
	case f < -(1 << 31):
		return -(1 << 31)
	}
	return int(f)
}

// mapFinishReason maps a finish_reason to a stop reason (pi 0.73.1).
func mapFinishReason(reason string) (provider.StopReason, string) {
	switch reason {
	case "stop", "end":
		return provider.StopReasonStop, ""
	case "length":
		return provider.StopReasonLength, ""
	case "tool_calls", "function_call":
		return provider.StopReasonToolUse, ""
	}
	return provider.StopReasonError, "Provider finish_reason: " + reason
}

// usageFrom converts a usage object as pi 1.6 does: cached tokens (OpenAI's and OpenRouter's
// prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens, Kimi's cached_tokens) are
// cache reads and not input, a cache write (cache_write_tokens) is counted apart, completion tokens
// already include the reasoning tokens. The cost is the catalogue's estimate, or what OpenRouter says
// it billed.
func usageFrom(u *rawUsage, m *provider.Model) provider.Usage {
	read := 0.0
	switch {
	case u.HasCachedTokens:
		read = u.CachedTokens
	case u.HasPromptCacheHitTokens:
		read = u.PromptCacheHitTokens
	case u.HasTopCachedTokens:
		read = u.TopCachedTokens
	}
	write := u.CacheWriteTokens
	input := max(0, u.PromptTokens-read-write)
	reasoning := u.ReasoningTokens
	if reasoning == 0 {
		reasoning = u.TopReasoningTokens
	}
	out := provider.Usage{
		Input:      toInt(input),
		Output:     toInt(u.CompletionTokens),
		CacheRead:  toInt(read),
		CacheWrite: toInt(write),
		Reasoning:  toInt(reasoning),
		// pi 1.6 writes the reasoning count of every usage it parses (0 when the server gives none).
		Keys: provider.UsageReasoning,
	}
	out.TotalTokens = out.Input + out.Output + out.CacheRead + out.CacheWrite
	out.CalculateCost(m.Cost)
	if m.Provider == "openrouter" || strings.Contains(m.BaseURL, "openrouter.ai") {
		applyOpenRouterCost(&out, u)
	}
	return out
}

// applyOpenRouterCost replaces the catalogue's total with the cost OpenRouter reports having billed,
// when its accounting is complete: the cost itself, plus for a bring-your-own-key request the
// upstream provider's (named, or as its prompt and completion parts).
func applyOpenRouterCost(out *provider.Usage, u *rawUsage) {
	valid := func(b billed) bool { return b.OK && !math.IsInf(b.Value, 0) && b.Value >= 0 }
	if !valid(u.Cost) || u.IsBYOK == nil {
		return
	}
	if !*u.IsBYOK {
		out.Cost.Total, out.Cost.TotalFromProvider = u.Cost.Value, true
		return
	}
	if !u.HasCostDetails {
		return
	}
	upstream := u.UpstreamCost
	if u.UpstreamCostIsNull {
		if !valid(u.UpstreamPromptCost) || !valid(u.UpstreamCompletionCost) {
			return
		}
		upstream = billed{Value: u.UpstreamPromptCost.Value + u.UpstreamCompletionCost.Value, OK: true}
	}
	if !valid(upstream) {
		return
	}
	out.Cost.Total, out.Cost.TotalFromProvider = u.Cost.Value+upstream.Value, true
}

func toInt(f float64) int {
	switch {
	case f != f, f <= 0:
		return 0
	case f >= 1<<53:
		return 1 << 53
	}
	return int(f)
}
