package rpc

import (
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
)

// EventWriter writes session events as JSON lines (JSON mode, RPC), reusing one buffer for the agent's
// events. Streamed deltas may wait in the buffer briefly; everything else is flushed at once.
//
// Write must be called by one goroutine at a time, in event order: a session's listener is.
type EventWriter struct {
	out  *LineWriter
	line []byte
}

// NewEventWriter writes events to out.
func NewEventWriter(out *LineWriter) *EventWriter { return &EventWriter{out: out} }

// Write sends one event.
func (w *EventWriter) Write(e harness.Event) error {
	urgent := e.Type != string(loop.EventMessageUpdate) && e.Type != string(loop.EventToolExecutionUpdate)
	line, err := e.AppendJSON(w.line[:0])
	if err != nil {
		return err
	}
	w.line = line
	return w.out.WriteRecord(encodedJSON(line), urgent)
}

// encodedJSON is a record already encoded as JSON.
type encodedJSON []byte

func (j encodedJSON) MarshalJSON() ([]byte, error) { return j, nil }
