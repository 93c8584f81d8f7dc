// Package scenario describes scripted model answers for the interop checks of scripts/interop: each
// Spec becomes an openaitest.Response (streamed text, reasoning, tool calls, errors, held or stalled
// streams). It knows the OpenAI wire format through openaitest and nothing of pi-go or pi.
package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// Spec is one scripted answer, as written in a scenario file or posted to /enqueue.
type Spec struct {
	// Reasoning is streamed first as reasoning_content deltas (split like Text).
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningField names the delta field of the reasoning (default reasoning_content; reasoning and
	// reasoning_text are the other names servers use).
	ReasoningField string `json:"reasoningField,omitempty"`
	// Text is the answer's text; Pieces says into how many deltas it is cut (default 1, one per
	// word when negative).
	Text   string `json:"text,omitempty"`
	Pieces int    `json:"pieces,omitempty"`
	// ToolCalls follow the text, each streamed as OpenAI does: id and name, then the arguments in
	// two fragments.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Finish overrides the finish reason (default stop, or tool_calls when there are tool calls).
	Finish string `json:"finish,omitempty"`
	// Usage overrides the usage chunk (prompt, completion, cached); default 1234, 57, 200.
	Usage *[3]int `json:"usage,omitempty"`
	// Status and Error make an error answer (OpenAI's error JSON) instead of a stream.
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// DelayMs pauses before each streamed event.
	DelayMs int `json:"delayMs,omitempty"`
	// HoldAfter, when set, streams that many events and then waits for POST /release.
	HoldAfter *int `json:"holdAfter,omitempty"`
	// CutAfter, when positive, sends only the first CutAfter events (the role chunk counts), then
	// ends as End says: a stream that breaks off before its finish reason.
	CutAfter int `json:"cutAfter,omitempty"`
	// End is close (default), reset, hangup or stall.
	End string `json:"end,omitempty"`
}

// ToolCall is one call of a scripted answer; Arguments is a JSON object (or a string sent as is).
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Scenario is a scenario file: the answers to the first requests, in order.
type Scenario struct {
	Model     string `json:"model,omitempty"`
	Responses []Spec `json:"responses"`
}

// Build turns a spec into the server's Response. n numbers the answer (1-based) for its ids
// (chatcmpl-mockNNNNNN, call_mockNNNNNN_i); the returned gate is non-nil when the answer holds after
// HoldAfter events: closing it lets the rest stream.
func (s Spec) Build(model string, n int) (openaitest.Response, chan struct{}, error) {
	if s.Status != 0 {
		msg := s.Error
		if msg == "" {
			msg = fmt.Sprintf("scripted error %d", s.Status)
		}
		return openaitest.ErrorResponse(s.Status, msg), nil, nil
	}
	c := openaitest.NewChunks(model)
	c.ID = fmt.Sprintf("chatcmpl-mock%06d", n)
	events := []string{c.Role()}
	field := s.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, p := range split(s.Reasoning, s.Pieces) {
		events = append(events, c.Reasoning(field, p))
	}
	for _, p := range split(s.Text, s.Pieces) {
		events = append(events, c.Text(p))
	}
	for i, tc := range s.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_mock%06d_%d", n, i)
		}
		args := string(tc.Arguments)
		var str string
		if json.Unmarshal(tc.Arguments, &str) == nil {
			args = str
		}
		if args == "" {
			args = "{}"
		}
		half := len(args) / 2
		events = append(events, c.ToolCall(i, id, tc.Name, ""),
			c.ToolCall(i, "", "", args[:half]), c.ToolCall(i, "", "", args[half:]))
	}
	finish := s.Finish
	if finish == "" {
		finish = "stop"
		if len(s.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	usage := [3]int{1234, 57, 200}
	if s.Usage != nil {
		usage = *s.Usage
	}
	events = append(events, c.Finish(finish), c.Usage(usage[0], usage[1], usage[2]), openaitest.Done())
	if s.CutAfter > 0 && s.CutAfter < len(events) {
		events = events[:s.CutAfter]
	}
	resp := openaitest.Response{Events: events, Delay: time.Duration(s.DelayMs) * time.Millisecond}
	switch s.End {
	case "", "close":
	case "reset":
		resp.End = openaitest.EndReset
	case "hangup":
		resp.End = openaitest.EndHangup
	case "stall":
		resp.End = openaitest.EndStall
	default:
		return openaitest.Response{}, nil, fmt.Errorf("answer %d: unknown end %q (close, reset, hangup, stall)", n, s.End)
	}
	var gate chan struct{}
	if s.HoldAfter != nil {
		k := *s.HoldAfter
		if k < 0 || k > len(events) {
			return openaitest.Response{}, nil, fmt.Errorf("answer %d: holdAfter %d outside 0..%d", n, k, len(events))
		}
		gate = make(chan struct{}, k)
		for i := 0; i < k; i++ {
			gate <- struct{}{}
		}
		resp.Gate = gate
	}
	return resp, gate, nil
}

// split cuts s into n pieces of about equal length (n <= 1: one piece; n < 0: one per word).
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n < 0 {
		words := strings.SplitAfter(s, " ")
		return words
	}
	if n <= 1 {
		return []string{s}
	}
	r := []rune(s)
	if n > len(r) {
		n = len(r)
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}
