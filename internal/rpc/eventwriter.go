package rpc

import (
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
)

// EventWriter writes session events as JSON lines (JSON mode, RPC). Agent events go through a
// loop.EventEncoder, which remembers the streaming message's JSON: pi's format repeats the whole
// partial answer in every delta line, and re-encoding it each time would cost quadratic work. Streamed
// deltas may wait in the buffer briefly; everything else is flushed at once.
//
// Write must be called by one goroutine at a time, in event order: a session's listener is.
type EventWriter struct {
	out  *LineWriter
	enc  loop.EventEncoder
	line []byte
}

// NewEventWriter writes events to out.
func NewEventWriter(out *LineWriter) *EventWriter { return &EventWriter{out: out} }

// Write sends one event.
func (w *EventWriter) Write(e harness.Event) error {
	urgent := e.Type != string(loop.EventMessageUpdate) && e.Type != string(loop.EventToolExecutionUpdate)
	if e.Agent != nil {
		var err error
		if w.line, err = w.enc.AppendJSON(w.line[:0], e.Agent); err == nil {
			return w.out.WriteRecord(encodedJSON(w.line), urgent)
		}
	}
	return w.out.WriteRecord(e, urgent)
}

// encodedJSON is a record already encoded as JSON.
type encodedJSON []byte

func (j encodedJSON) MarshalJSON() ([]byte, error) { return j, nil }
