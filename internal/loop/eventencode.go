package loop

import "github.com/pi-go/pi-go/internal/provider"

// EventEncoder writes events as their MarshalJSON does, byte for byte, for an output that writes every
// event of a run in order (pi's JSON mode, RPC). The streaming assistant message goes through a
// provider.StreamEncoder, so the message_update of a long answer costs copying its text (twice, as
// pi's format repeats it), not escaping it again.
//
// An EventEncoder is used by one goroutine at a time. Its zero value is ready to use.
type EventEncoder struct {
	msg provider.StreamEncoder
}

// AppendJSON appends e's JSON to dst. On error the appended bytes are incomplete; the error is the one
// MarshalJSON reports.
func (enc *EventEncoder) AppendJSON(dst []byte, e *Event) ([]byte, error) {
	switch e.Type {
	case EventMessageStart, EventMessageUpdate, EventMessageEnd:
		am, ok := e.Message.(*provider.AssistantMessage)
		if !ok || am == nil || (e.Type == EventMessageUpdate && e.AssistantEvent == nil) {
			break
		}
		dst = append(dst, `{"type":"`...)
		dst = append(dst, e.Type...)
		dst = append(dst, '"')
		var err error
		if e.Type == EventMessageUpdate {
			dst = append(dst, `,"assistantMessageEvent":`...)
			if dst, err = enc.msg.AppendEvent(dst, e.AssistantEvent); err != nil {
				return dst, err
			}
		}
		dst = append(dst, `,"message":`...)
		if dst, err = enc.msg.AppendAssistant(dst, am); err != nil {
			return dst, err
		}
		return append(dst, '}'), nil
	}
	data, err := e.MarshalJSON()
	return append(dst, data...), err
}
