package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pi-go/pi-go/internal/jsonx"
)

const (
	// sseBufferSize is the read size: one read takes about two hundred one-token chunks.
	sseBufferSize = 32 << 10
	// maxLineSize bounds one SSE line (a whole tool call from a server that sends it in one chunk can be
	// large, but not this large).
	maxLineSize = 64 << 20
	// maxPreamble bounds what is kept of a body that is not SSE, to explain it in the error.
	maxPreamble = 1 << 20
)

// sseEvent is one dispatched server-sent event. Data is valid until the next call to next.
type sseEvent struct {
	Name []byte
	Data []byte
}

// sseReader reads server-sent events as the WHATWG spec defines them (data lines joined with "\n",
// dispatched at a blank line; comments, id and retry ignored), with two allowances for servers seen in
// the wild: consecutive data lines without the blank line between them are separate events when each is
// a complete JSON value, and a complete last event is kept when the body ends without its blank line.
// Comment lines (": OPENROUTER PROCESSING") and blank lines are skipped in any number.
type sseReader struct {
	r    *bufio.Reader
	long []byte

	data    []byte
	hasData bool
	name    []byte

	carry    []byte // a data line read ahead while dispatching the event before it
	hasCarry bool

	crRest    []byte // the rest of a line split at lone CRs
	crPos     int
	crPending bool

	// sawData: at least one data line was read. Until then, lines that are not SSE fields are kept in
	// preamble: a server that answered with plain JSON (an error object, a non-streaming completion).
	sawData  bool
	preamble []byte
}

func newSSEReader(body io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(body, sseBufferSize)}
}

var errLineTooLong = errors.New("stream line longer than 64 MiB")

// line returns the next line without its terminator (LF, CRLF or a lone CR); io.EOF once the body is
// exhausted.
func (r *sseReader) line() ([]byte, error) {
	if r.crPending {
		rest := r.crRest[r.crPos:]
		if i := bytes.IndexByte(rest, '\r'); i >= 0 {
			r.crPos += i + 1
			return rest[:i], nil
		}
		r.crPending = false
		return rest, nil
	}
	l, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], l...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > maxLineSize {
				return nil, errLineTooLong
			}
			l, err = r.r.ReadSlice('\n')
			r.long = append(r.long, l...)
		}
		l = r.long
	}
	if err != nil && (err != io.EOF || len(l) == 0) {
		return nil, err
	}
	l = bytes.TrimSuffix(l, []byte{'\n'})
	l = bytes.TrimSuffix(l, []byte{'\r'})
	if i := bytes.IndexByte(l, '\r'); i >= 0 {
		// Lone CRs end lines too; the rest is served by the next calls.
		r.crRest = append(r.crRest[:0], l[i+1:]...)
		r.crPos = 0
		r.crPending = true
		return l[:i], nil
	}
	return l, nil
}

// next returns the next event that carries data; io.EOF when the body ended cleanly, another error
// when reading failed.
func (r *sseReader) next() (sseEvent, error) {
	if r.hasCarry {
		r.hasCarry = false
		r.data = append(r.data[:0], r.carry...)
		r.hasData = true
	}
	for {
		l, err := r.line()
		if err != nil {
			if err == io.EOF && r.hasData && r.complete(r.data) {
				return r.dispatch(), nil
			}
			r.hasData = false
			return sseEvent{}, err
		}
		if ev, ok := r.field(l); ok {
			return ev, nil
		}
	}
}

func splitField(l []byte) (name, value []byte) {
	i := bytes.IndexByte(l, ':')
	if i < 0 {
		return l, nil
	}
	name, value = l[:i], l[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return name, value
}

// field processes one line; it reports an event when the line completes one.
func (r *sseReader) field(l []byte) (sseEvent, bool) {
	if len(l) == 0 {
		if r.hasData {
			return r.dispatch(), true
		}
		r.name = r.name[:0]
		return sseEvent{}, false
	}
	if l[0] == ':' {
		return sseEvent{}, false
	}
	name, value := splitField(l)
	switch string(name) {
	case "data":
		r.sawData = true
		if !r.hasData {
			r.data = append(r.data[:0], value...)
			r.hasData = true
			return sseEvent{}, false
		}
		if r.complete(r.data) {
			// No blank line after the previous data line: it was an event of its own.
			r.carry = append(r.carry[:0], value...)
			r.hasCarry = true
			return r.dispatch(), true
		}
		r.data = append(r.data, '\n')
		r.data = append(r.data, value...)
	case "event":
		r.name = append(r.name[:0], value...)
	case "id", "retry":
	default:
		if !r.sawData && len(r.preamble) < maxPreamble {
			r.preamble = append(r.preamble, l...)
			r.preamble = append(r.preamble, '\n')
		}
	}
	return sseEvent{}, false
}

func (r *sseReader) dispatch() sseEvent {
	r.hasData = false
	ev := sseEvent{Name: r.name, Data: r.data}
	r.name = r.name[:0:0]
	return ev
}

// complete reports whether data is a whole event by itself: [DONE] or one valid JSON value.
func (r *sseReader) complete(data []byte) bool {
	if isDone(data) {
		return true
	}
	return jsonx.Valid(data)
}

// isDone reports the end-of-stream marker (pi's SDK accepts anything starting with it).
func isDone(data []byte) bool { return bytes.HasPrefix(data, []byte("[DONE]")) }

// describePreamble quotes the start of a body that was not SSE, for an error message.
func describePreamble(p []byte) string {
	p = bytes.TrimSpace(p)
	if len(p) > 300 {
		return fmt.Sprintf("%q…", p[:300])
	}
	return fmt.Sprintf("%q", p)
}
