package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// StreamEventHooks is the optional part of RequestHooks for pi's provider_stream_event: each event
// of a streamed (text/event-stream) response, its data as the server sent it, handed over as the API
// package reads it, before the package turns it into pi-go's events. Only data that is JSON is
// handed over ("[DONE]" is not). StreamEvent must not block: it runs on the reader's goroutine.
type StreamEventHooks interface {
	StreamEvent(ctx context.Context, data json.RawMessage)
}

// tapStream wraps a successful streamed response's body so that hooks see its events as they are
// read; a response that is not a stream is left as it is.
func tapStream(ctx context.Context, hooks StreamEventHooks, resp *http.Response) {
	if !strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		return
	}
	resp.Body = &sseTap{ReadCloser: resp.Body, ctx: ctx, hooks: hooks}
}

// sseTap splits what its reader reads into server-sent events (data lines joined with "\n", an
// event ending at a blank line or at the end of the body).
type sseTap struct {
	io.ReadCloser
	ctx   context.Context
	hooks StreamEventHooks

	line    []byte // the current line, not yet ended
	data    []byte // the data lines of the current event
	hasData bool
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.scan(p[:n])
	if err == io.EOF {
		if len(t.line) > 0 {
			t.endLine()
		}
		t.dispatch()
	}
	return n, err
}

func (t *sseTap) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.line = append(t.line, b...)
			return
		}
		t.line = append(t.line, b[:i]...)
		b = b[i+1:]
		t.endLine()
	}
}

func (t *sseTap) endLine() {
	line := bytes.TrimSuffix(t.line, []byte("\r"))
	switch {
	case len(line) == 0:
		t.dispatch()
	case bytes.HasPrefix(line, []byte("data:")):
		v := line[len("data:"):]
		v = bytes.TrimPrefix(v, []byte(" "))
		if t.hasData {
			t.data = append(t.data, '\n')
		}
		t.data = append(t.data, v...)
		t.hasData = true
	}
	t.line = t.line[:0]
}

func (t *sseTap) dispatch() {
	if !t.hasData {
		return
	}
	data := t.data
	t.data, t.hasData = nil, false
	if json.Valid(data) {
		t.hooks.StreamEvent(t.ctx, data)
	}
}
