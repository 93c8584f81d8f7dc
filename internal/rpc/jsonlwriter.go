package rpc

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// deltaFlushDelay bounds how long a streamed delta may sit in the buffer: a reader watching the stream
// live sees text within this delay, while a fast stream is written in large chunks instead of one
// syscall per delta.
const deltaFlushDelay = 15 * time.Millisecond

// LineWriter writes JSON records, one per line, to w. Records are never interleaved. Records marked
// urgent are flushed at once; others (streamed deltas) are flushed within deltaFlushDelay or when the
// buffer fills. Safe for concurrent use.
type LineWriter struct {
	mu        sync.Mutex
	w         *bufio.Writer
	scheduled bool
	err       error
	timer     *time.Timer
}

// NewLineWriter buffers output to w.
func NewLineWriter(w io.Writer) *LineWriter {
	return &LineWriter{w: bufio.NewWriterSize(w, 64*1024)}
}

// WriteRecord writes v (a json.Marshaler or any value) as one line. urgent records flush the buffer.
func (lw *LineWriter) WriteRecord(v any, urgent bool) error {
	var data []byte
	var err error
	if m, ok := v.(json.Marshaler); ok {
		// pi-go's marshalers write JavaScript-compatible JSON themselves.
		data, err = m.MarshalJSON()
	} else {
		data, err = provider.MarshalJS(v)
	}
	if err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(data); err != nil {
		lw.err = err
		return err
	}
	if err := lw.w.WriteByte('\n'); err != nil {
		lw.err = err
		return err
	}
	if urgent {
		return lw.flushLocked()
	}
	if !lw.scheduled {
		lw.scheduled = true
		if lw.timer == nil {
			lw.timer = time.AfterFunc(deltaFlushDelay, lw.timedFlush)
		} else {
			lw.timer.Reset(deltaFlushDelay)
		}
	}
	return nil
}

func (lw *LineWriter) timedFlush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.scheduled {
		_ = lw.flushLocked()
	}
}

func (lw *LineWriter) flushLocked() error {
	lw.scheduled = false
	if err := lw.w.Flush(); err != nil && lw.err == nil {
		lw.err = err
	}
	return lw.err
}

// Flush writes out everything buffered.
func (lw *LineWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.flushLocked()
}

// Close flushes and stops the flush timer.
func (lw *LineWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.timer != nil {
		lw.timer.Stop()
	}
	return lw.flushLocked()
}
