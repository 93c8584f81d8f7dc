package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// EventType names an agent event; the strings are pi's.
type EventType string

const (
	EventAgentStart          EventType = "agent_start"
	EventAgentEnd            EventType = "agent_end"
	EventTurnStart           EventType = "turn_start"
	EventTurnEnd             EventType = "turn_end"
	EventMessageStart        EventType = "message_start"
	EventMessageUpdate       EventType = "message_update"
	EventMessageEnd          EventType = "message_end"
	EventToolExecutionStart  EventType = "tool_execution_start"
	EventToolExecutionUpdate EventType = "tool_execution_update"
	EventToolExecutionEnd    EventType = "tool_execution_end"
)

// Event is one agent event. Which fields are set depends on Type:
//
//	agent_end              Messages (every message this run added)
//	turn_end               Message (the turn's assistant message), ToolResults
//	message_start/end      Message (message_start of an answer: also the provider's start event)
//	message_update         Message (partial assistant), AssistantEvent (JSON: the delta and the usage)
//	tool_execution_start   ToolCallID, ToolName, Args
//	tool_execution_update  ToolCallID, ToolName, Args, Result (accumulated partial result)
//	tool_execution_end     ToolCallID, ToolName, Result, IsError, DurationMs (nil: the tool never ran)
//
// Events and everything they point to are immutable once emitted: subscribers may keep them and read
// them from other goroutines. One exception: the streaming answer of message_start and message_update
// is the provider's own message, which grows after the event (a copy per event made an answer with
// thousands of tool calls cost quadratic memory). Read it while handling the event; to keep it, or to
// read it on another goroutine, take MessageSnapshot.
type Event struct {
	Type           EventType
	Message        provider.Message
	AssistantEvent *provider.AssistantEvent
	ToolResults    []*provider.ToolResultMessage
	Messages       []provider.Message
	ToolCallID     string
	ToolName       string
	Args           json.RawMessage
	Result         *ToolResult
	IsError        bool
	DurationMs     *int64
}

// MessageSnapshot returns the event's message in a form the caller may keep and read from any
// goroutine: for a streaming answer, a copy of it as it is now (as of this event while the event is
// handled); any other message as it is.
func (e *Event) MessageSnapshot() provider.Message {
	if (e.Type == EventMessageStart || e.Type == EventMessageUpdate) && e.AssistantEvent != nil {
		if m := e.AssistantEvent.Snapshot(); m != nil {
			return m
		}
	}
	return e.Message
}

// usageJSONMax is room for a usage object with every field at its widest.
const usageJSONMax = 512

// MarshalJSON writes the event in pi's shape, field for field.
func (e *Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }

// AppendJSON appends the event's JSON to dst (an output that writes many events reuses its buffer);
// on error it returns nil.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	b.WriteString(`{"type":"`)
	b.WriteString(string(e.Type))
	b.WriteByte('"')
	var err error
	put := func(key string, v json.Marshaler) {
		if err != nil {
			return
		}
		b.WriteString(`,"`)
		b.WriteString(key)
		b.WriteString(`":`)
		if v == nil {
			b.WriteString("null")
			return
		}
		var data []byte
		data, err = v.MarshalJSON()
		b.Write(data)
	}
	putStr := func(key, v string) {
		b.WriteString(`,"`)
		b.WriteString(key)
		b.WriteString(`":`)
		b.Write(jsonx.AppendString(b.AvailableBuffer(), v))
	}
	switch e.Type {
	case EventAgentEnd:
		b.WriteString(`,"messages":[`)
		for i, m := range e.Messages {
			if i > 0 {
				b.WriteByte(',')
			}
			data, merr := m.MarshalJSON()
			if merr != nil {
				return nil, merr
			}
			b.Write(data)
		}
		b.WriteByte(']')
	case EventTurnEnd:
		put("message", e.Message)
		b.WriteString(`,"toolResults":[`)
		for i, m := range e.ToolResults {
			if i > 0 {
				b.WriteByte(',')
			}
			data, merr := m.MarshalJSON()
			if merr != nil {
				return nil, merr
			}
			b.Write(data)
		}
		b.WriteByte(']')
	case EventMessageStart, EventMessageEnd:
		put("message", e.Message)
	case EventMessageUpdate:
		// pi 1.6 writes the delta and the answer's usage so far, not the answer itself.
		am, ok := e.Message.(*provider.AssistantMessage)
		if !ok || am == nil || e.AssistantEvent == nil {
			return nil, errors.New("message_update without an assistant message and its event")
		}
		b.WriteString(`,"usage":`)
		// Appended in place: a usage object allocated per delta was most of JSON mode's cost.
		b.Grow(usageJSONMax)
		b.Write(am.Usage.AppendJSON(b.AvailableBuffer()))
		b.WriteString(`,"assistantMessageEvent":`)
		ame, aerr := e.AssistantEvent.AppendJSON(b.AvailableBuffer())
		if aerr != nil {
			return nil, aerr
		}
		b.Write(ame)
	case EventToolExecutionStart, EventToolExecutionUpdate, EventToolExecutionEnd:
		putStr("toolCallId", e.ToolCallID)
		putStr("toolName", e.ToolName)
		if e.Type != EventToolExecutionEnd {
			b.WriteString(`,"args":`)
			args := bytes.TrimSpace(e.Args)
			if len(args) == 0 {
				args = []byte("{}")
			}
			if cerr := json.Compact(b, args); cerr != nil {
				return nil, cerr
			}
		}
		res := e.Result
		if res == nil {
			res = &ToolResult{}
		}
		if e.Type == EventToolExecutionUpdate {
			put("partialResult", *res)
		} else if e.Type == EventToolExecutionEnd {
			put("result", *res)
			if e.IsError {
				b.WriteString(`,"isError":true`)
			} else {
				b.WriteString(`,"isError":false`)
			}
			if e.DurationMs != nil {
				b.WriteString(`,"durationMs":`)
				b.WriteString(strconv.FormatInt(*e.DurationMs, 10))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
