// Package responsestest writes OpenAI Responses API streams in the server's exact shapes (event
// names, member order, sequence numbers, the item lifecycle), for tests and for the scripted server
// that records what pi sends. It knows the wire format only.
package responsestest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Stream builds one response's server-sent events.
type Stream struct {
	ID    string
	Model string
	b     strings.Builder
	seq   int
	out   int
	items []json.RawMessage
}

// NewStream starts a response: response.created and response.in_progress.
func NewStream(id, model string) *Stream {
	s := &Stream{ID: id, Model: model}
	resp := s.response("in_progress", nil, "null")
	s.event("response.created", `"response":`+resp)
	s.event("response.in_progress", `"response":`+resp)
	return s
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// event writes one event: "event: <type>" and its data, whose first members are type and
// sequence_number.
func (s *Stream) event(typ, members string) {
	data := `{"type":` + q(typ) + `,"sequence_number":` + fmt.Sprint(s.seq)
	if members != "" {
		data += "," + members
	}
	data += "}"
	s.seq++
	fmt.Fprintf(&s.b, "event: %s\ndata: %s\n\n", typ, data)
}

// Raw appends text as it is (a comment, a malformed line).
func (s *Stream) Raw(text string) *Stream {
	s.b.WriteString(text)
	return s
}

// Event appends an event of any type with the given members (JSON object members, without braces).
func (s *Stream) Event(typ, members string) *Stream {
	s.event(typ, members)
	return s
}

func (s *Stream) response(status string, extra []string, usage string) string {
	out := "[" + strings.Join(rawStrings(s.items), ",") + "]"
	r := `{"id":` + q(s.ID) + `,"object":"response","created_at":1767323045,"status":` + q(status) +
		`,"background":false,"error":null,"incomplete_details":null,"instructions":null,"model":` + q(s.Model) +
		`,"output":` + out + `,"parallel_tool_calls":true,"store":false,"text":{"format":{"type":"text"}},"usage":` + usage
	for _, e := range extra {
		r += "," + e
	}
	return r + "}"
}

func rawStrings(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it)
	}
	return out
}

// Reasoning adds a reasoning item whose summary streams in pieces (one summary part), with the
// encrypted content the server returns when asked to include it ("" for none).
func (s *Stream) Reasoning(id, encrypted string, pieces ...string) *Stream {
	idx := s.out
	s.out++
	s.event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%s,"type":"reasoning","summary":[]}`, idx, q(id)))
	text := strings.Join(pieces, "")
	if len(pieces) > 0 {
		s.event("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, q(id), idx))
		for _, p := range pieces {
			s.event("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"delta":%s,"obfuscation":"x1"`, q(id), idx, q(p)))
		}
		s.event("response.reasoning_summary_text.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"text":%s`, q(id), idx, q(text)))
		s.event("response.reasoning_summary_part.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":%s}`, q(id), idx, q(text)))
	}
	item := `{"id":` + q(id) + `,"type":"reasoning"`
	if encrypted != "" {
		item += `,"encrypted_content":` + q(encrypted)
	}
	summary := "[]"
	if len(pieces) > 0 {
		summary = `[{"type":"summary_text","text":` + q(text) + `}]`
	}
	item += `,"summary":` + summary + "}"
	s.items = append(s.items, json.RawMessage(item))
	s.event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, idx, item))
	return s
}

// Message adds an assistant message whose text streams in pieces; phase is "" or the item's phase
// ("commentary", "final_answer").
func (s *Stream) Message(id, phase string, pieces ...string) *Stream {
	idx := s.out
	s.out++
	ph := ""
	if phase != "" {
		ph = `,"phase":` + q(phase)
	}
	s.event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%s,"type":"message","status":"in_progress","content":[]%s,"role":"assistant"}`, idx, q(id), ph))
	s.event("response.content_part.added", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`, q(id), idx))
	for _, p := range pieces {
		s.event("response.output_text.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":"x1"`, q(id), idx, q(p)))
	}
	text := strings.Join(pieces, "")
	s.event("response.output_text.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"text":%s,"logprobs":[]`, q(id), idx, q(text)))
	part := `{"type":"output_text","annotations":[],"logprobs":[],"text":` + q(text) + `}`
	s.event("response.content_part.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"content_index":0,"part":%s`, q(id), idx, part))
	item := `{"id":` + q(id) + `,"type":"message","status":"completed","content":[` + part + `]` + ph + `,"role":"assistant"}`
	s.items = append(s.items, json.RawMessage(item))
	s.event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, idx, item))
	return s
}

// FunctionCall adds a function call whose arguments stream in pieces.
func (s *Stream) FunctionCall(itemID, callID, name string, pieces ...string) *Stream {
	idx := s.out
	s.out++
	s.event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%s,"type":"function_call","status":"in_progress","arguments":"","call_id":%s,"name":%s}`, idx, q(itemID), q(callID), q(name)))
	for _, p := range pieces {
		s.event("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%s,"output_index":%d,"delta":%s,"obfuscation":"x1"`, q(itemID), idx, q(p)))
	}
	args := strings.Join(pieces, "")
	s.event("response.function_call_arguments.done", fmt.Sprintf(`"item_id":%s,"output_index":%d,"arguments":%s`, q(itemID), idx, q(args)))
	item := `{"id":` + q(itemID) + `,"type":"function_call","status":"completed","arguments":` + q(args) + `,"call_id":` + q(callID) + `,"name":` + q(name) + `}`
	s.items = append(s.items, json.RawMessage(item))
	s.event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, idx, item))
	return s
}

// Usage is a response's token counts.
type Usage struct {
	Input, Cached, Output, Reasoning int
}

func (u Usage) json() string {
	return fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}`,
		u.Input, u.Cached, u.Output, u.Reasoning, u.Input+u.Output)
}

// Completed ends the response with response.completed and returns the stream text.
func (s *Stream) Completed(u Usage) string {
	s.event("response.completed", `"response":`+s.response("completed", nil, u.json()))
	return s.b.String()
}

// Incomplete ends the response with response.incomplete for reason (max_output_tokens,
// content_filter).
func (s *Stream) Incomplete(reason string, u Usage) string {
	r := s.response("incomplete", nil, u.json())
	r = strings.Replace(r, `"incomplete_details":null`, `"incomplete_details":{"reason":`+q(reason)+`}`, 1)
	s.event("response.incomplete", `"response":`+r)
	return s.b.String()
}

// Failed ends the response with response.failed carrying an error.
func (s *Stream) Failed(code, message string) string {
	r := s.response("failed", nil, "null")
	r = strings.Replace(r, `"error":null`, `"error":{"code":`+q(code)+`,"message":`+q(message)+`}`, 1)
	s.event("response.failed", `"response":`+r)
	return s.b.String()
}

// Error ends the stream with an error event (as the API sends for a failure mid-stream).
func (s *Stream) Error(code, message string) string {
	s.event("error", `"code":`+q(code)+`,"message":`+q(message)+`,"param":null`)
	return s.b.String()
}

// Cut returns the stream so far, as a server that dropped the connection sent it.
func (s *Stream) Cut() string { return s.b.String() }
