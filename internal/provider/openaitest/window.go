package openaitest

import (
	"fmt"
	"net/http"
)

// Overflow names a server whose context-overflow answer a Window gives.
type Overflow int

const (
	// OverflowOpenAI is OpenAI's 400 invalid_request_error with code context_length_exceeded.
	OverflowOpenAI Overflow = iota
	// OverflowLlamaCpp is llama.cpp server's 400 exceed_context_size_error.
	OverflowLlamaCpp
)

// PromptTokens is how many tokens a Window counts for a request: a quarter of its body's bytes,
// rounded up. The body holds everything the model reads (system prompt, tool definitions, messages)
// plus JSON framing, so this counts a little more than a tokenizer would for English text, never less.
func PromptTokens(body []byte) int { return (len(body) + 3) / 4 }

// Window answers as a server with a fixed context window does: a request whose prompt (PromptTokens)
// is larger than Tokens gets the server's real overflow error; any other goes to Answer with its
// prompt size, which a realistic answer reports as usage (see Reply). Use its Respond method with
// Server.SetResponder.
type Window struct {
	Tokens int
	Server Overflow
	Answer func(r *Request, promptTokens int) Response
}

// Respond is the answer to r.
func (w Window) Respond(r *Request) Response {
	prompt := PromptTokens(r.Body)
	if prompt > w.Tokens {
		return w.OverflowError(prompt)
	}
	return w.Answer(r, prompt)
}

// OverflowError is the server's answer to a prompt of promptTokens that does not fit, word for word
// and member for member.
func (w Window) OverflowError(promptTokens int) Response {
	if w.Server == OverflowLlamaCpp {
		type llamaError struct {
			Code          int    `json:"code"`
			Message       string `json:"message"`
			Type          string `json:"type"`
			NPromptTokens int    `json:"n_prompt_tokens"`
			NCtx          int    `json:"n_ctx"`
		}
		return Response{Status: http.StatusBadRequest, Body: mustJSON(map[string]llamaError{"error": {
			Code: http.StatusBadRequest,
			Message: fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it",
				promptTokens, w.Tokens),
			Type: "exceed_context_size_error", NPromptTokens: promptTokens, NCtx: w.Tokens,
		}})}
	}
	type openAIError struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   string `json:"param"`
		Code    string `json:"code"`
	}
	return Response{Status: http.StatusBadRequest, Body: mustJSON(map[string]openAIError{"error": {
		Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.",
			w.Tokens, promptTokens),
		Type: "invalid_request_error", Param: "messages", Code: "context_length_exceeded",
	}})}
}

// Reply is a complete streamed answer that reports promptTokens as its input: the text (when not
// empty) in one delta, then the tool calls as ToolCallReply streams them, finish_reason tool_calls
// (stop without calls), a usage chunk and [DONE].
func Reply(model string, promptTokens int, text string, calls ...ToolCallSpec) Response {
	c := NewChunks(model)
	events := []string{c.Role()}
	completion := 1
	if text != "" {
		events = append(events, c.Text(text))
		completion += (len(text) + 3) / 4
	}
	for i, tc := range calls {
		half := len(tc.Arguments) / 2
		events = append(events, c.ToolCall(i, tc.ID, tc.Name, ""),
			c.ToolCall(i, "", "", tc.Arguments[:half]), c.ToolCall(i, "", "", tc.Arguments[half:]))
		completion += (len(tc.Name) + len(tc.Arguments) + 3) / 4
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	events = append(events, c.Finish(finish), c.Usage(promptTokens, completion, 0), Done())
	return Response{Events: events}
}
