package anthropictest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Usage is the token usage a scripted answer reports.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Answer is one streamed assistant message.
type Answer struct {
	ID, Model string
	Blocks    []Block
	// StopReason is sent in message_delta; "" means end_turn, or tool_use when a block is a tool call.
	StopReason string
	// Usage is reported in message_start (input and cache) and message_delta (output); nil lets the
	// server's cache simulation fill it (output 57).
	Usage *Usage
	// Ping sends a ping event after message_start.
	Ping bool
}

// Block is one content block of an answer.
type Block struct {
	Kind      string   // "text", "thinking", "redacted_thinking" or "tool_use"
	Pieces    []string // text, thinking or partial_json deltas
	Signature string   // thinking: sent as a signature_delta
	Data      string   // redacted_thinking payload
	ID, Name  string   // tool_use
}

// Text is a text block sent in the given pieces.
func Text(pieces ...string) Block { return Block{Kind: "text", Pieces: pieces} }

// Thinking is a thinking block with its signature.
func Thinking(signature string, pieces ...string) Block {
	return Block{Kind: "thinking", Pieces: pieces, Signature: signature}
}

// Redacted is a redacted_thinking block.
func Redacted(data string) Block { return Block{Kind: "redacted_thinking", Data: data} }

// ToolUse is a tool call whose JSON input is sent in the given pieces.
func ToolUse(id, name string, pieces ...string) Block {
	return Block{Kind: "tool_use", ID: id, Name: name, Pieces: pieces}
}

// Event formats one SSE event as Anthropic frames it.
func Event(name string, data any) string {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("event: %s\ndata: %s\n\n", name, b)
}

type obj = map[string]any

// Events is the answer as Anthropic streams it.
func (a Answer) Events() []string {
	u := Usage{Output: 57}
	if a.Usage != nil {
		u = *a.Usage
	}
	stop := a.StopReason
	out := []string{Event("message_start", obj{"type": "message_start", "message": obj{
		"id": a.ID, "type": "message", "role": "assistant", "model": a.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite,
			"cache_read_input_tokens": u.CacheRead, "output_tokens": 1,
			"cache_creation": obj{"ephemeral_5m_input_tokens": u.CacheWrite, "ephemeral_1h_input_tokens": 0}},
	}})}
	if a.Ping {
		out = append(out, Event("ping", obj{"type": "ping"}))
	}
	for i, b := range a.Blocks {
		var start any
		switch b.Kind {
		case "text":
			start = obj{"type": "text", "text": ""}
		case "thinking":
			start = obj{"type": "thinking", "thinking": "", "signature": ""}
		case "redacted_thinking":
			start = obj{"type": "redacted_thinking", "data": b.Data}
		case "tool_use":
			start = obj{"type": "tool_use", "id": b.ID, "name": b.Name, "input": obj{}}
			if stop == "" {
				stop = "tool_use"
			}
		}
		out = append(out, Event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start}))
		for _, p := range b.Pieces {
			var delta any
			switch b.Kind {
			case "text":
				delta = obj{"type": "text_delta", "text": p}
			case "thinking":
				delta = obj{"type": "thinking_delta", "thinking": p}
			case "tool_use":
				delta = obj{"type": "input_json_delta", "partial_json": p}
			}
			out = append(out, Event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": delta}))
		}
		if b.Kind == "thinking" && b.Signature != "" {
			out = append(out, Event("content_block_delta", obj{"type": "content_block_delta", "index": i,
				"delta": obj{"type": "signature_delta", "signature": b.Signature}}))
		}
		out = append(out, Event("content_block_stop", obj{"type": "content_block_stop", "index": i}))
	}
	if stop == "" {
		stop = "end_turn"
	}
	out = append(out,
		Event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
			"usage": obj{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite,
				"cache_read_input_tokens": u.CacheRead, "output_tokens": u.Output}}),
		Event("message_stop", obj{"type": "message_stop"}))
	return out
}

// SSE joins events into one body.
func SSE(events ...string) string { return strings.Join(events, "") }

// ErrorEvent is the error event Anthropic sends mid-stream (e.g. overloaded_error).
func ErrorEvent(typ, message string) string {
	return fmt.Sprintf("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":%s,\"message\":%s}}\n\n", quote(typ), quote(message))
}

// ErrorBody is Anthropic's JSON error body, keys in Anthropic's order.
func ErrorBody(typ, message string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s},"request_id":"req_test"}`, quote(typ), quote(message))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func modelOf(body []byte) string {
	var r struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &r)
	return r.Model
}
