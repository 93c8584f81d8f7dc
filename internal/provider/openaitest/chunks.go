package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Data frames one SSE data event.
func Data(payload string) string { return "data: " + payload + "\n\n" }

// Comment frames an SSE comment (a keep-alive such as ": OPENROUTER PROCESSING").
func Comment(text string) string { return ": " + text + "\n\n" }

// Done is the end-of-stream marker.
func Done() string { return "data: [DONE]\n\n" }

// Chunks writes chat.completion.chunk events the way OpenAI does.
type Chunks struct {
	ID      string
	Model   string
	Created int64
}

// NewChunks returns a chunk writer for model with a fixed id and creation time.
func NewChunks(model string) *Chunks {
	return &Chunks{ID: "chatcmpl-test", Model: model, Created: 1733234567}
}

// wireChunk keeps OpenAI's member order.
type wireChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   any          `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	Logprobs     any            `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

// Chunk frames one chunk whose choice has the given delta and finish reason ("" for null).
func (c *Chunks) Chunk(delta map[string]any, finish string) string {
	choice := wireChoice{Delta: delta}
	if finish != "" {
		choice.FinishReason = &finish
	}
	return Data(mustJSON(wireChunk{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model,
		Choices: []wireChoice{choice}}))
}

// Role is the first chunk of an answer: the assistant role and empty content.
func (c *Chunks) Role() string {
	return c.Chunk(map[string]any{"role": "assistant", "content": ""}, "")
}

// Text is a content delta.
func (c *Chunks) Text(s string) string { return c.Chunk(map[string]any{"content": s}, "") }

// Reasoning is a thinking delta in the named field (reasoning_content, reasoning or reasoning_text).
func (c *Chunks) Reasoning(field, s string) string { return c.Chunk(map[string]any{field: s}, "") }

// ToolCall is a tool-call delta; empty id and name are left out, as servers do after the first
// fragment.
func (c *Chunks) ToolCall(index int, id, name, args string) string {
	fn := map[string]any{"arguments": args}
	tc := map[string]any{"index": index, "function": fn}
	if id != "" {
		tc["id"] = id
		tc["type"] = "function"
	}
	if name != "" {
		fn["name"] = name
	}
	return c.Chunk(map[string]any{"tool_calls": []any{tc}}, "")
}

// Finish is the chunk that carries the finish reason.
func (c *Chunks) Finish(reason string) string { return c.Chunk(map[string]any{}, reason) }

// Usage is the final usage chunk (stream_options.include_usage) with no choices.
func (c *Chunks) Usage(prompt, completion, cached int) string {
	return Data(mustJSON(wireChunk{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model,
		Choices: []wireChoice{},
		Usage: map[string]any{
			"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_tokens_details":     map[string]any{"cached_tokens": cached, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0},
		},
	}))
}

// ToolCallSpec is one complete tool call of a scripted answer.
type ToolCallSpec struct {
	ID, Name, Arguments string
}

// TextReply is a complete streamed answer: the text in the given pieces, finish_reason stop, a usage
// chunk and [DONE].
func TextReply(model string, pieces ...string) Response {
	c := NewChunks(model)
	events := []string{c.Role()}
	completion := 0
	for _, p := range pieces {
		events = append(events, c.Text(p))
		completion++
	}
	events = append(events, c.Finish("stop"), c.Usage(10, completion, 0), Done())
	return Response{Events: events}
}

// ToolCallReply is a complete streamed answer that calls tools: an optional text, then each call
// (name first, arguments in two fragments, as OpenAI streams them), finish_reason tool_calls, usage and
// [DONE].
func ToolCallReply(model, text string, calls ...ToolCallSpec) Response {
	c := NewChunks(model)
	events := []string{c.Role()}
	if text != "" {
		events = append(events, c.Text(text))
	}
	for i, tc := range calls {
		events = append(events, c.ToolCall(i, tc.ID, tc.Name, ""))
		half := len(tc.Arguments) / 2
		events = append(events, c.ToolCall(i, "", "", tc.Arguments[:half]), c.ToolCall(i, "", "", tc.Arguments[half:]))
	}
	events = append(events, c.Finish("tool_calls"), c.Usage(10, 5, 0), Done())
	return Response{Events: events}
}

// ErrorResponse is an OpenAI-style error answer.
func ErrorResponse(status int, message string) Response {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case status >= 500:
		typ = "server_error"
	}
	return Response{Status: status, Body: mustJSON(map[string]any{
		"error": map[string]any{"message": message, "type": typ, "param": nil, "code": nil},
	})}
}

// LongText returns a whole stream body of n content deltas, each the given text, followed by
// finish_reason stop, a usage chunk and [DONE]; use it as Response.Raw. It is built by repeating one
// encoded chunk, so 200,000 deltas take a few milliseconds.
func LongText(model string, n int, delta string) []byte {
	c := NewChunks(model)
	one := c.Text(delta)
	var b bytes.Buffer
	b.Grow(len(one)*n + 1024)
	b.WriteString(c.Role())
	for i := 0; i < n; i++ {
		b.WriteString(one)
	}
	b.WriteString(c.Finish("stop"))
	b.WriteString(c.Usage(10, n, 0))
	b.WriteString(Done())
	return b.Bytes()
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("openaitest: encoding a chunk: %v", err))
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
