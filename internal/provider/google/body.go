package google

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// bodyErrors is the RoundTripper of one call: it hands the SDK response bodies whose read errors
// (a dropped connection, the body closed by an abort or a timeout) look like their end, and keeps
// the error for the provider to report. The SDK writes read errors to the standard logger, which
// would print over the terminal UI.
type bodyErrors struct {
	base http.RoundTripper
	mu   sync.Mutex
	err  error
}

func (t *bodyErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &quietBody{rc: resp.Body, t: t}
	return resp, nil
}

// readErr is the first read error a body met, if any.
func (t *bodyErrors) readErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

type quietBody struct {
	rc io.ReadCloser
	t  *bodyErrors
}

func (b *quietBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.t.mu.Lock()
		if b.t.err == nil {
			b.t.err = err
		}
		b.t.mu.Unlock()
		err = io.EOF
	}
	return n, err
}

func (b *quietBody) Close() error { return b.rc.Close() }
