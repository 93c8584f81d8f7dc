package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-go/pi-go/internal/jsonx"

	"github.com/pi-go/pi-go/internal/provider"
)

// event is the part of an Anthropic stream event pi reads; one struct for every type keeps decoding to
// one small allocation-light Unmarshal per event.
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string    `json:"id"`
		Model string    `json:"model"`
		Usage wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
		StopDetails *struct {
			Explanation string `json:"explanation"`
		} `json:"stop_details"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
}

type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheCreation            *struct {
		Ephemeral1h *int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	OutputTokensDetails *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// decoder turns Anthropic's stream events into provider events (pi's event loop in
// anthropic-messages.js): blocks by the server's index, usage from message_start and message_delta,
// the stop reason, and the events that end the stream.
type decoder struct {
	b     *provider.BlockBuilder
	model *provider.Model
	// open maps the server's block index to the content index of the block it opened.
	open     map[int]int
	usage    provider.Usage
	prices   provider.ModelCost
	sawStart bool
	sawStop  bool
	scan     jsonx.Scanner
	dv       deltaEvent
	// tools are the request's tool names, to undo Claude Code's casing on OAuth requests (nil otherwise).
	tools []string
}

func newDecoder(b *provider.BlockBuilder, m *provider.Model) *decoder {
	return &decoder{b: b, model: m, open: map[int]int{}, prices: m.Cost}
}

// handle processes one SSE event (name, data). A non-empty error text ends the stream with it.
func (d *decoder) handle(name string, data []byte) string {
	switch name {
	case "error":
		return string(data)
	case "message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta", "content_block_stop":
	default:
		return "" // ping and events pi does not know
	}
	if name == "content_block_delta" {
		// The event of every delta, read with the scanner: no reflection, one string per delta.
		dv, err := d.scanDelta(data)
		if err != nil {
			return fmt.Sprintf("Could not parse Anthropic SSE event %s: %v; data=%s", name, err, data)
		}
		if dv.Type == "content_block_delta" {
			d.delta(dv)
			return ""
		}
	}
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Sprintf("Could not parse Anthropic SSE event %s: %v; data=%s", name, err, data)
	}
	switch ev.Type {
	case "message_start":
		d.sawStart = true
		if ev.Message == nil {
			return ""
		}
		d.b.SetResponseID(ev.Message.ID)
		if ev.Message.Model != d.model.ID {
			d.b.SetResponseModel(ev.Message.Model)
			d.prices = fallbackPrices(d.model, ev.Message.Model)
		}
		u := &ev.Message.Usage
		d.usage.Input = intOr(u.InputTokens)
		d.usage.Output = intOr(u.OutputTokens)
		d.usage.CacheRead = intOr(u.CacheReadInputTokens)
		d.usage.CacheWrite = intOr(u.CacheCreationInputTokens)
		if u.CacheCreation != nil {
			d.usage.CacheWrite1h = intOr(u.CacheCreation.Ephemeral1h)
		}
		d.usage.Keys |= provider.UsageCacheWrite1h
		d.setUsage()
	case "content_block_start":
		cb := ev.ContentBlock
		if cb == nil {
			return ""
		}
		switch cb.Type {
		case "text":
			i := d.b.Open(provider.Content{Type: provider.ContentText})
			d.b.Append(i, cb.Text)
			d.open[ev.Index] = i
		case "thinking":
			d.open[ev.Index] = d.b.Open(provider.Content{Type: provider.ContentThinking, Thinking: cb.Thinking,
				ThinkingSignature: cb.Signature})
		case "redacted_thinking":
			d.open[ev.Index] = d.b.Open(provider.Content{Type: provider.ContentThinking, Thinking: "[Reasoning redacted]",
				ThinkingSignature: cb.Data, Redacted: true})
		case "tool_use":
			name := cb.Name
			if d.tools != nil {
				name = fromClaudeCodeName(name, d.tools)
			}
			d.open[ev.Index] = d.b.Open(provider.Content{Type: provider.ContentToolCall, ID: cb.ID, Name: name})
		case "fallback":
			if d.b.Len() > 0 {
				return "Anthropic performed an unsupported mid-output model fallback"
			}
		}
	case "content_block_delta":
		if ev.Delta != nil {
			d.delta(&deltaEvent{Index: ev.Index, Delta: deltaBody{Type: ev.Delta.Type, Text: ev.Delta.Text,
				Thinking: ev.Delta.Thinking, PartialJSON: ev.Delta.PartialJSON, Signature: ev.Delta.Signature}})
		}
	case "content_block_stop":
		if i, ok := d.open[ev.Index]; ok {
			delete(d.open, ev.Index)
			d.b.Close(i)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			reason, msg, ok := mapStopReason(ev.Delta.StopReason, ev.Delta.StopDetails)
			if !ok {
				return "Unhandled stop reason: " + ev.Delta.StopReason
			}
			d.b.SetStopReason(ev.Delta.StopReason, reason, msg)
		}
		if u := ev.Usage; u != nil {
			if u.InputTokens != nil {
				d.usage.Input = *u.InputTokens
			}
			if u.OutputTokens != nil {
				d.usage.Output = *u.OutputTokens
			}
			if u.CacheReadInputTokens != nil {
				d.usage.CacheRead = *u.CacheReadInputTokens
			}
			if u.CacheCreationInputTokens != nil {
				d.usage.CacheWrite = *u.CacheCreationInputTokens
			}
			if u.CacheCreation != nil && u.CacheCreation.Ephemeral1h != nil {
				d.usage.CacheWrite1h = *u.CacheCreation.Ephemeral1h
			}
			if u.OutputTokensDetails != nil && u.OutputTokensDetails.ThinkingTokens != nil {
				d.usage.Reasoning = *u.OutputTokensDetails.ThinkingTokens
				d.usage.Keys |= provider.UsageReasoningLast
			}
		}
		d.setUsage()
	case "message_stop":
		d.sawStop = true
	}
	return ""
}

// deltaEvent is a content_block_delta event.
type deltaEvent struct {
	Type  string    `json:"type"`
	Index int       `json:"index"`
	Delta deltaBody `json:"delta"`
}

type deltaBody struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	PartialJSON string `json:"partial_json"`
	Signature   string `json:"signature"`
}

// scanDelta reads a content_block_delta event. The result is valid until the next call.
func (d *decoder) scanDelta(data []byte) (*deltaEvent, error) {
	sc := &d.scan
	sc.Reset(data)
	dv := &d.dv
	*dv = deltaEvent{}
	ok := sc.Object(func(key []byte) {
		switch string(key) {
		case "type":
			if string(sc.Str()) == "content_block_delta" { // compared without a copy
				dv.Type = "content_block_delta"
			}
		case "index":
			if n, ok := sc.Number(); ok {
				dv.Index = int(n)
			}
		case "delta":
			sc.Object(func(key []byte) {
				switch string(key) {
				case "type":
					dv.Delta.Type = deltaType(sc.Str())
				case "text":
					dv.Delta.Text = string(sc.Str())
				case "thinking":
					dv.Delta.Thinking = string(sc.Str())
				case "partial_json":
					dv.Delta.PartialJSON = string(sc.Str())
				case "signature":
					dv.Delta.Signature = string(sc.Str())
				default:
					sc.Skip()
				}
			})
		default:
			sc.Skip()
		}
	})
	sc.End()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return dv, nil
}

// deltaType returns the delta type as a constant string, so no delta allocates one.
func deltaType(b []byte) string {
	switch string(b) {
	case "text_delta":
		return "text_delta"
	case "thinking_delta":
		return "thinking_delta"
	case "input_json_delta":
		return "input_json_delta"
	case "signature_delta":
		return "signature_delta"
	}
	return string(b)
}

// delta adds one delta to the block the server's index names.
func (d *decoder) delta(ev *deltaEvent) {
	i, ok := d.open[ev.Index]
	if !ok {
		return
	}
	// A delta goes only to a block of its kind.
	switch kind := d.b.Kind(i); {
	case ev.Delta.Type == "text_delta" && kind == provider.ContentText:
		d.b.Append(i, ev.Delta.Text)
	case ev.Delta.Type == "thinking_delta" && kind == provider.ContentThinking:
		d.b.Append(i, ev.Delta.Thinking)
	case ev.Delta.Type == "input_json_delta" && kind == provider.ContentToolCall:
		d.b.Append(i, ev.Delta.PartialJSON)
	case ev.Delta.Type == "signature_delta" && kind == provider.ContentThinking:
		// Signatures are not shown: no event.
		d.b.Update(i, func(c *provider.Content) { c.ThinkingSignature += ev.Delta.Signature })
	}
}

// setUsage records the usage with Anthropic's missing total computed and the cost priced.
func (d *decoder) setUsage() {
	u := d.usage
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	u.CalculateCost(d.prices)
	d.b.SetUsage(u)
}

// finish checks how the stream ended (pi's checks after the event loop); "" means it ended well.
func (d *decoder) finish() string {
	switch {
	case d.sawStart && !d.sawStop:
		return "Anthropic stream ended before message_stop"
	case d.b.StopReason() == provider.StopReasonPending:
		return "Anthropic stream ended without a stop reason"
	case d.b.StopReason() == provider.StopReasonError:
		return d.b.ErrorMessage() // a refusal: mapStopReason worded it
	}
	return ""
}

// fallbackPrices are the prices of the model that answered: a server-side fallback model's own, else
// the requested model's.
func fallbackPrices(m *provider.Model, answered string) provider.ModelCost {
	if m.Compat != nil {
		for _, f := range m.Compat.AllowedFallbackModels {
			if f.Provider == m.Provider && f.Model == answered {
				return f.Cost
			}
		}
	}
	return m.Cost
}

func intOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// mapStopReason maps Anthropic's stop reason (pi's mapStopReason); ok is false for one pi does not
// know.
func mapStopReason(reason string, details *struct {
	Explanation string `json:"explanation"`
}) (provider.StopReason, string, bool) {
	switch reason {
	case "end_turn", "pause_turn", "stop_sequence":
		return provider.StopReasonStop, "", true
	case "max_tokens":
		return provider.StopReasonLength, "", true
	case "tool_use":
		return provider.StopReasonToolUse, "", true
	case "refusal":
		msg := "The model refused to complete the request"
		if details != nil && details.Explanation != "" {
			msg = details.Explanation
		}
		return provider.StopReasonError, msg, true
	case "sensitive":
		return provider.StopReasonError, "Provider stopped with: sensitive", true
	}
	return "", "", false
}
