package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// event holds the members of a Responses stream event that pi reads; everything else is skipped
// by the decoder (decodeEvent).
type event struct {
	Type        string          `json:"type"`
	OutputIndex *int            `json:"output_index"`
	Delta       string          `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Item        json.RawMessage `json:"item"`
	Response    json.RawMessage `json:"response"`
	Code        json.RawMessage `json:"code"`
	Message     json.RawMessage `json:"message"`
}

// outputItem is an output item (response.output_item.added / .done).
type outputItem struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	CallID    string  `json:"call_id"`
	Name      string  `json:"name"`
	Arguments *string `json:"arguments"`
	Phase     *string `json:"phase"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	EncryptedContent *string `json:"encrypted_content"`
}

// response is the response object of response.created / .completed / .incomplete / .failed.
type response struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason *string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        float64 `json:"input_tokens"`
		InputTokensDetails *struct {
			CachedTokens     float64 `json:"cached_tokens"`
			CacheWriteTokens float64 `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        float64 `json:"output_tokens"`
		OutputTokensDetails *struct {
			ReasoningTokens float64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens float64 `json:"total_tokens"`
	} `json:"usage"`
	Output []json.RawMessage `json:"output"`
}

// slot is the block an output item streams into.
type slot struct {
	block int
	kind  string // provider.ContentText, ContentThinking or ContentToolCall
}

// processor turns the events of one response into builder calls, as pi's processResponsesStream does.
type processor struct {
	b     *provider.BlockBuilder
	model *provider.Model
	slots map[int]slot // by output_index; -1 for events without one
	// reasoningByID: the thinking block of each reasoning item, for encrypted content that arrives
	// only with the completed response (Azure).
	reasoningByID map[string]int
	unfinished    map[int]bool // tool-call blocks whose output_item.done has not arrived
	terminal      bool         // response.completed, .incomplete or .failed arrived
	onContent     func()
	scan          jsonx.Scanner
}

// knownEventTypes are the event types whose names decodeEvent hands out without allocating.
var knownEventTypes = []string{"response.output_text.delta", "response.reasoning_summary_text.delta",
	"response.function_call_arguments.delta", "response.reasoning_text.delta", "response.refusal.delta",
	"response.output_item.added", "response.output_item.done", "response.content_part.added",
	"response.content_part.done", "response.output_text.done", "response.reasoning_summary_part.added",
	"response.reasoning_summary_part.done", "response.reasoning_summary_text.done",
	"response.function_call_arguments.done", "response.created", "response.in_progress", "response.completed",
	"response.incomplete", "response.failed", "error"}

// decodeEvent reads the members of e from data with the scanner (the stream's hot path: one event per
// delta); the item and response objects are kept raw for encoding/json, as they come a few times
// per answer. It accepts what encoding/json accepts.
func (p *processor) decodeEvent(data []byte, e *event) error {
	s := &p.scan
	s.Reset(data)
	ok := s.Object(func(key []byte) {
		switch string(key) {
		case "type":
			b := s.Str()
			e.Type = ""
			for _, t := range knownEventTypes {
				if string(b) == t {
					e.Type = t
					break
				}
			}
			if e.Type == "" && b != nil {
				e.Type = string(b)
			}
		case "output_index":
			if n, ok := s.Number(); ok {
				i := int(max(min(n, 1<<31), -(1 << 31)))
				e.OutputIndex = &i
			}
		case "delta":
			e.Delta = string(s.Str())
		case "arguments":
			if s.Peek() == '"' {
				a := string(s.Str())
				e.Arguments = &a
			} else {
				s.Skip()
			}
		case "item":
			e.Item = s.Raw()
		case "response":
			e.Response = s.Raw()
		case "code":
			e.Code = s.Raw()
		case "message":
			e.Message = s.Raw()
		default:
			s.Skip()
		}
	})
	s.End()
	if err := s.Err(); err != nil {
		return err
	}
	if !ok {
		// Not an object: encoding/json would refuse it too.
		return fmt.Errorf("event data is not a JSON object")
	}
	return nil
}

func newProcessor(b *provider.BlockBuilder, m *provider.Model) *processor {
	return &processor{b: b, model: m, slots: map[int]slot{}, reasoningByID: map[string]int{}, unfinished: map[int]bool{}}
}

func outputIndex(e *event) int {
	if e.OutputIndex == nil {
		return -1
	}
	return *e.OutputIndex
}

// handle applies the data of one SSE event; it returns the error text that ends the stream, or "".
func (p *processor) handle(data []byte) string {
	var e event
	if err := p.decodeEvent(data, &e); err != nil {
		return fmt.Sprintf("Malformed JSON in Responses stream event (%v): %s", err, excerpt(data))
	}
	if p.onContent != nil && e.Type != "" && !strings.HasSuffix(e.Type, ".in_progress") {
		p.onContent()
	}
	switch e.Type {
	case "response.created":
		var r response
		if json.Unmarshal(e.Response, &r) == nil && r.ID != "" {
			p.b.SetResponseID(r.ID)
		}
	case "response.output_item.added":
		var it outputItem
		if err := json.Unmarshal(e.Item, &it); err != nil {
			return fmt.Sprintf("Malformed output item in Responses stream (%v): %s", err, excerpt(e.Item))
		}
		p.createSlot(outputIndex(&e), &it)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		p.appendTo(outputIndex(&e), provider.ContentThinking, e.Delta)
	case "response.reasoning_summary_part.done":
		p.appendTo(outputIndex(&e), provider.ContentThinking, "\n\n")
	case "response.output_text.delta", "response.refusal.delta":
		p.appendTo(outputIndex(&e), provider.ContentText, e.Delta)
	case "response.function_call_arguments.delta":
		p.appendTo(outputIndex(&e), provider.ContentToolCall, e.Delta)
	case "response.function_call_arguments.done":
		if s, ok := p.slot(outputIndex(&e), provider.ContentToolCall); ok && e.Arguments != nil {
			p.b.SetArguments(s.block, *e.Arguments)
		}
	case "response.output_item.done":
		var it outputItem
		if err := json.Unmarshal(e.Item, &it); err != nil {
			return fmt.Sprintf("Malformed output item in Responses stream (%v): %s", err, excerpt(e.Item))
		}
		p.itemDone(outputIndex(&e), &it, e.Item)
	case "response.completed", "response.incomplete":
		var r response
		if err := json.Unmarshal(e.Response, &r); err != nil {
			return fmt.Sprintf("Malformed response in Responses stream (%v): %s", err, excerpt(e.Response))
		}
		p.finalize(&r)
	case "error":
		return "Error Code " + jsString(e.Code) + ": " + jsString(e.Message)
	case "response.failed":
		p.terminal = true
		var r response
		_ = json.Unmarshal(e.Response, &r)
		p.b.SetStopReason(r.Status, p.b.StopReason(), "")
		switch {
		case r.Error != nil:
			code, msg := "unknown", "no message"
			if r.Error.Code != nil && *r.Error.Code != "" {
				code = *r.Error.Code
			}
			if r.Error.Message != nil && *r.Error.Message != "" {
				msg = *r.Error.Message
			}
			return code + ": " + msg
		case r.IncompleteDetails != nil && r.IncompleteDetails.Reason != nil && *r.IncompleteDetails.Reason != "":
			return "incomplete: " + *r.IncompleteDetails.Reason
		}
		return "Unknown error (no error details in response)"
	}
	return ""
}

// jsString writes a JSON value as JavaScript's template string would: strings bare, null and absent
// as "null" and "undefined".
func jsString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "undefined"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (p *processor) slot(idx int, kind string) (slot, bool) {
	s, ok := p.slots[idx]
	return s, ok && s.kind == kind && p.b.IsOpen(s.block)
}

func (p *processor) appendTo(idx int, kind, delta string) {
	if s, ok := p.slot(idx, kind); ok {
		p.b.Append(s.block, delta)
	}
}

// createSlot opens the block of a new output item; items pi does not show (web searches, …) get none.
func (p *processor) createSlot(idx int, it *outputItem) (slot, bool) {
	var s slot
	switch it.Type {
	case "reasoning":
		s = slot{kind: provider.ContentThinking, block: p.b.Open(provider.Content{Type: provider.ContentThinking})}
	case "message":
		p.applyPhase(it)
		s = slot{kind: provider.ContentText, block: p.b.Open(provider.Content{Type: provider.ContentText})}
	case "function_call":
		c := provider.Content{Type: provider.ContentToolCall, ID: it.CallID + "|" + it.ID, Name: it.Name}
		if it.Arguments != nil && *it.Arguments != "" {
			args := *it.Arguments
			c.PartialArgs = &args
		}
		s = slot{kind: provider.ContentToolCall, block: p.b.Open(c)}
		p.unfinished[s.block] = true
	default:
		return slot{}, false
	}
	p.slots[idx] = s
	return s, true
}

// applyPhase: a final answer ends the turn, whatever came before it.
func (p *processor) applyPhase(it *outputItem) {
	if it.Type == "message" && it.Phase != nil && *it.Phase == "final_answer" {
		p.b.SetStopReason(p.b.RawStopReason(), provider.StopReasonStop, "")
	}
}

// itemDone closes an item's block with the server's final version of it.
func (p *processor) itemDone(idx int, it *outputItem, raw json.RawMessage) {
	p.applyPhase(it)
	s, ok := p.slots[idx]
	if !ok {
		if s, ok = p.createSlot(idx, it); !ok {
			return
		}
	}
	switch {
	case it.Type == "reasoning" && s.kind == provider.ContentThinking:
		summary := make([]string, len(it.Summary))
		for i, part := range it.Summary {
			summary[i] = part.Text
		}
		content := make([]string, len(it.Content))
		for i, part := range it.Content {
			content[i] = part.Text
		}
		sig := compact(raw)
		p.b.Update(s.block, func(c *provider.Content) {
			if t := strings.Join(summary, "\n\n"); t != "" {
				c.Thinking = t
			} else if t := strings.Join(content, "\n\n"); t != "" {
				c.Thinking = t
			}
			c.ThinkingSignature = sig
		})
		p.reasoningByID[it.ID] = s.block
	case it.Type == "message" && s.kind == provider.ContentText:
		var text strings.Builder
		for _, part := range it.Content {
			if part.Type == "output_text" {
				text.WriteString(part.Text)
			} else {
				text.WriteString(part.Refusal)
			}
		}
		phase := ""
		if it.Phase != nil {
			phase = *it.Phase
		}
		p.b.Update(s.block, func(c *provider.Content) {
			c.Text = text.String()
			c.TextSignature = encodeTextSignature(it.ID, phase)
		})
	case it.Type == "function_call" && s.kind == provider.ContentToolCall:
		if it.Arguments != nil && *it.Arguments != "" {
			p.b.SetArguments(s.block, *it.Arguments)
		}
		delete(p.unfinished, s.block)
	default:
		return
	}
	p.b.Close(s.block)
	delete(p.slots, idx)
}

// finalize reads the completed (or incomplete) response: encrypted reasoning that came only here, the
// id, the usage and the stop reason.
func (p *processor) finalize(r *response) {
	p.terminal = true
	p.backfillReasoning(r.Output)
	if r.ID != "" {
		p.b.SetResponseID(r.ID)
	}
	if u := r.Usage; u != nil {
		var cached, written, reasoning float64
		if d := u.InputTokensDetails; d != nil {
			cached, written = d.CachedTokens, d.CacheWriteTokens
		}
		if d := u.OutputTokensDetails; d != nil {
			reasoning = d.ReasoningTokens
		}
		p.b.SetUsage(provider.Usage{
			// OpenAI counts cached and cache-write tokens in input_tokens.
			Input:       toInt(max(0, u.InputTokens-cached-written)),
			Output:      toInt(u.OutputTokens),
			CacheRead:   toInt(cached),
			CacheWrite:  toInt(written),
			Reasoning:   toInt(reasoning),
			TotalTokens: toInt(u.TotalTokens),
			Keys:        provider.UsageReasoning,
		})
	}
	usage := p.b.Usage()
	usage.CalculateCost(p.model.Cost)
	p.b.SetUsage(usage)

	reason := ""
	if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != nil {
		reason = *r.IncompleteDetails.Reason
	}
	raw := r.Status
	if reason != "" {
		raw = r.Status + "." + reason
	}
	stop, errMsg := mapStatus(r.Status, reason)
	if stop == provider.StopReasonStop && p.b.HasToolCall() {
		stop = provider.StopReasonToolUse
	}
	p.b.SetStopReason(raw, stop, errMsg)
}

// backfillReasoning adds encrypted content to reasoning items whose output_item.done lacked it.
func (p *processor) backfillReasoning(output []json.RawMessage) {
	for _, raw := range output {
		var it outputItem
		if json.Unmarshal(raw, &it) != nil || it.Type != "reasoning" || it.EncryptedContent == nil || *it.EncryptedContent == "" {
			continue
		}
		i, ok := p.reasoningByID[it.ID]
		if !ok {
			continue
		}
		stored := p.b.Block(i).ThinkingSignature
		var fields map[string]json.RawMessage
		if stored == "" || json.Unmarshal([]byte(stored), &fields) != nil {
			continue
		}
		if ec, ok := fields["encrypted_content"]; ok && string(ec) != "null" && string(ec) != `""` {
			continue
		}
		enc, _ := appendJSONString(nil, *it.EncryptedContent)
		sig := appendMember([]byte(stored), "encrypted_content", enc)
		p.b.Update(i, func(c *provider.Content) { c.ThinkingSignature = sig })
	}
}

// appendMember sets key in a JSON object text, replacing an existing member in place (as JavaScript's
// spread keeps the key's position) or adding it at the end.
func appendMember(obj []byte, key string, value []byte) string {
	var ordered []struct {
		k string
		v json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return string(obj)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return string(obj)
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return string(obj)
		}
		ordered = append(ordered, struct {
			k string
			v json.RawMessage
		}{t.(string), v})
	}
	found := false
	out := []byte{'{'}
	for i, kv := range ordered {
		if i > 0 {
			out = append(out, ',')
		}
		out, _ = appendJSONString(out, kv.k)
		out = append(out, ':')
		if kv.k == key {
			out = append(out, value...)
			found = true
		} else {
			out = append(out, compact(kv.v)...)
		}
	}
	if !found {
		if len(ordered) > 0 {
			out = append(out, ',')
		}
		out, _ = appendJSONString(out, key)
		out = append(out, ':')
		out = append(out, value...)
	}
	return string(append(out, '}'))
}

// read applies every event of the response body (framed by the SDK's SSE decoder); touch runs for
// each. It returns the error text of a stream that failed on the server's side, or the read error of
// one that broke.
func (p *processor) read(resp *http.Response, touch func()) (string, error) {
	dec := ssestream.NewDecoder(resp)
	for dec.Next() {
		touch()
		data := dec.Event().Data
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if msg := p.handle(data); msg != "" {
			return msg, nil
		}
	}
	if err := dec.Err(); err != nil {
		return "", err
	}
	return p.end(), nil
}

// end checks the stream once it is over; it returns the error text of a stream that did not finish.
func (p *processor) end() string {
	if !p.terminal {
		return "OpenAI Responses stream ended before a terminal response event"
	}
	if p.b.StopReason() == provider.StopReasonToolUse {
		// The agent runs every tool call of the final message: never hand over one whose arguments
		// may be cut off.
		for i := 0; i < p.b.Len(); i++ {
			if p.unfinished[i] {
				c := p.b.Block(i)
				return fmt.Sprintf("OpenAI Responses stream completed with an unfinished tool call: %s (%s)", c.Name, c.ID)
			}
		}
	}
	return ""
}

// mapStatus maps a response status to a stop reason, keeping why an incomplete response stopped.
func mapStatus(status, incompleteReason string) (provider.StopReason, string) {
	switch status {
	case "", "completed", "in_progress", "queued":
		return provider.StopReasonStop, ""
	case "incomplete":
		if incompleteReason == "max_output_tokens" {
			return provider.StopReasonLength, ""
		}
		if incompleteReason != "" {
			return provider.StopReasonError, "Response incomplete: " + incompleteReason
		}
		return provider.StopReasonError, "Response incomplete without a provider reason"
	case "failed", "cancelled":
		return provider.StopReasonError, ""
	}
	return provider.StopReasonError, "Unhandled stop reason: " + status
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func excerpt(b []byte) string {
	const limit = 200
	if len(b) > limit {
		return fmt.Sprintf("%q…", b[:limit])
	}
	return fmt.Sprintf("%q", b)
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
