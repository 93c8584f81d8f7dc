package provider

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// AssistantEventType names a step of a streamed assistant response.
type AssistantEventType string

const (
	EventStart         AssistantEventType = "start"
	EventTextStart     AssistantEventType = "text_start"
	EventTextDelta     AssistantEventType = "text_delta"
	EventTextEnd       AssistantEventType = "text_end"
	EventThinkingStart AssistantEventType = "thinking_start"
	EventThinkingDelta AssistantEventType = "thinking_delta"
	EventThinkingEnd   AssistantEventType = "thinking_end"
	EventToolCallStart AssistantEventType = "toolcall_start"
	EventToolCallDelta AssistantEventType = "toolcall_delta"
	EventToolCallEnd   AssistantEventType = "toolcall_end"
	EventDone          AssistantEventType = "done"
	EventError         AssistantEventType = "error"
)

// AssistantEvent is one event of a provider stream (pi's AssistantMessageEvent).
//
// Partial is an immutable snapshot of the message so far: a provider never changes a message after
// handing it out, so consumers may keep it and read it from any goroutine without copying.
type AssistantEvent struct {
	Type         AssistantEventType
	ContentIndex int
	// Delta is the new text of a *_delta event.
	Delta string
	// Content is the final text of a text_end or thinking_end event.
	Content string
	// ToolCall is the finished block of a toolcall_end event.
	ToolCall *Content
	// Reason is the stop reason of done and error events.
	Reason StopReason
	// Partial is the message so far (every event but done and error). From a StreamBuilder it is the
	// stream's own message, as in pi, which keeps changing after the event: read it while handling the
	// event, and take Snapshot to keep it.
	Partial *AssistantMessage
	// Message is the final message of done and error events (JSON key "message" or "error").
	Message *AssistantMessage

	source snapshotter // the builder that owns Partial; nil for events made otherwise
}

// snapshotter is a builder whose message keeps changing after its events: it makes the copies.
type snapshotter interface{ snapshot() *AssistantMessage }

// Snapshot returns a copy of the message so far that the caller may keep: the partial message as it
// is now (while the event is handled, as of this event; later, as the stream has grown since), or the
// final message of done and error events. It is safe from any goroutine.
func (e *AssistantEvent) Snapshot() *AssistantMessage {
	switch {
	case e.Message != nil:
		return e.Message
	case e.source != nil:
		return e.source.snapshot()
	case e.Partial != nil:
		c := *e.Partial
		c.Content = slices.Clone(e.Partial.Content)
		return &c
	}
	return nil
}

// IsDelta reports whether the event only adds text to a block (the events a slow consumer may merge).
func (e *AssistantEvent) IsDelta() bool {
	return e.Type == EventTextDelta || e.Type == EventThinkingDelta || e.Type == EventToolCallDelta
}

// MarshalJSON writes the event as pi 1.6's JSON and RPC modes do (AppendJSON).
func (e *AssistantEvent) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }

// AppendJSON appends the event as pi 1.6 writes it on the wire: the delta alone, without the partial
// message (clients rebuild the answer from the deltas, and message_end carries the whole of it); a
// toolcall_start names the call's id and tool. done and error carry the final message.
func (e *AssistantEvent) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"type":`...)
	dst = jsonx.AppendString(dst, string(e.Type))
	final := func(key string) ([]byte, error) {
		dst = append(dst, `,"reason":`...)
		dst = jsonx.AppendString(dst, string(e.Reason))
		dst = append(dst, `,"`...)
		dst = append(dst, key...)
		dst = append(dst, `":`...)
		if e.Message == nil {
			return append(dst, "null}"...), nil
		}
		data, err := e.Message.MarshalJSON()
		if err != nil {
			return dst, err
		}
		dst = append(dst, data...)
		return append(dst, '}'), nil
	}
	switch e.Type {
	case EventDone:
		return final("message")
	case EventError:
		return final("error")
	case EventStart:
		return append(dst, '}'), nil
	}
	dst = append(dst, `,"contentIndex":`...)
	dst = strconv.AppendInt(dst, int64(e.ContentIndex), 10)
	switch e.Type {
	case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
		dst = append(dst, `,"delta":`...)
		dst = jsonx.AppendString(dst, e.Delta)
	case EventTextEnd, EventThinkingEnd:
		dst = append(dst, `,"content":`...)
		dst = jsonx.AppendString(dst, e.Content)
	case EventToolCallStart:
		if e.Partial == nil || e.ContentIndex < 0 || e.ContentIndex >= len(e.Partial.Content) ||
			e.Partial.Content[e.ContentIndex].Type != ContentToolCall {
			return dst, fmt.Errorf("toolcall_start content at index %d is not a tool call", e.ContentIndex)
		}
		call := &e.Partial.Content[e.ContentIndex]
		dst = append(dst, `,"id":`...)
		dst = jsonx.AppendString(dst, call.ID)
		dst = append(dst, `,"toolName":`...)
		dst = jsonx.AppendString(dst, call.Name)
	case EventToolCallEnd:
		dst = append(dst, `,"toolCall":`...)
		if e.ToolCall == nil {
			dst = append(dst, "null"...)
		} else {
			data, err := e.ToolCall.MarshalJSON()
			if err != nil {
				return dst, err
			}
			dst = append(dst, data...)
		}
	}
	return append(dst, '}'), nil
}
