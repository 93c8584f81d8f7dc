package provider

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
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

	source *StreamBuilder // the builder that owns Partial; nil for events made otherwise
}

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

// MarshalJSON writes the event with exactly the fields pi writes for its type.
func (e *AssistantEvent) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"`)
	b.WriteString(string(e.Type))
	b.WriteByte('"')
	writeMsg := func(key string, m *AssistantMessage) error {
		b.WriteString(`,"`)
		b.WriteString(key)
		b.WriteString(`":`)
		if m == nil {
			b.WriteString("null")
			return nil
		}
		data, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	}
	switch e.Type {
	case EventDone:
		b.WriteString(`,"reason":`)
		writeJSONString(&b, string(e.Reason))
		if err := writeMsg("message", e.Message); err != nil {
			return nil, err
		}
	case EventError:
		b.WriteString(`,"reason":`)
		writeJSONString(&b, string(e.Reason))
		if err := writeMsg("error", e.Message); err != nil {
			return nil, err
		}
	case EventStart:
		if err := writeMsg("partial", e.Partial); err != nil {
			return nil, err
		}
	default:
		b.WriteString(`,"contentIndex":`)
		b.WriteString(strconv.Itoa(e.ContentIndex))
		switch e.Type {
		case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
			b.WriteString(`,"delta":`)
			writeJSONString(&b, e.Delta)
		case EventTextEnd, EventThinkingEnd:
			b.WriteString(`,"content":`)
			writeJSONString(&b, e.Content)
		case EventToolCallEnd:
			b.WriteString(`,"toolCall":`)
			if e.ToolCall == nil {
				b.WriteString("null")
			} else {
				data, err := e.ToolCall.MarshalJSON()
				if err != nil {
					return nil, err
				}
				b.Write(data)
			}
		}
		if err := writeMsg("partial", e.Partial); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an event written by MarshalJSON (or by pi).
func (e *AssistantEvent) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type         AssistantEventType `json:"type"`
		ContentIndex int                `json:"contentIndex"`
		Delta        string             `json:"delta"`
		Content      string             `json:"content"`
		ToolCall     *Content           `json:"toolCall"`
		Reason       StopReason         `json:"reason"`
		Partial      json.RawMessage    `json:"partial"`
		Message      json.RawMessage    `json:"message"`
		Error        json.RawMessage    `json:"error"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = AssistantEvent{Type: raw.Type, ContentIndex: raw.ContentIndex, Delta: raw.Delta, Content: raw.Content,
		ToolCall: raw.ToolCall, Reason: raw.Reason}
	decode := func(r json.RawMessage) (*AssistantMessage, error) {
		if len(r) == 0 || string(r) == "null" {
			return nil, nil
		}
		m, err := UnmarshalMessage(r)
		if err != nil {
			return nil, err
		}
		am, _ := m.(*AssistantMessage)
		return am, nil
	}
	var err error
	if e.Partial, err = decode(raw.Partial); err != nil {
		return err
	}
	final := raw.Message
	if e.Type == EventError {
		final = raw.Error
	}
	e.Message, err = decode(final)
	return err
}
