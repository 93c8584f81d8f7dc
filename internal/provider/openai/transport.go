package openai

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// DefaultIdleTimeout ends a call whose server sends nothing for this long: pi 1.6's httpIdleTimeoutMs
// default (its HTTP client's header and body timeouts).
const DefaultIdleTimeout = 300 * time.Second

// DefaultReasoningIdleTimeout is the default for calls that ask a reasoning model to think: OpenAI's
// chat completions stream nothing at all while o-series and gpt-5 models reason, for minutes at high
// effort (pi's SDK allows 10 minutes).
const DefaultReasoningIdleTimeout = 10 * time.Minute

// maxErrorBody bounds what is kept of an error response to quote the server's words.
const maxErrorBody = 64 << 10

// newDefaultClient is the client used when Config.HTTPClient is nil: no overall timeout (a stream may
// last many minutes), bounded dial, TLS and header waits, proxies from the environment.
func newDefaultClient() *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 10 * time.Minute,
		ExpectContinueTimeout: time.Second,
	}}
}

// callDoer is the go-openai HTTPDoer of one call. go-openai builds the request (URL, Authorization,
// SSE headers) and interprets error statuses; callDoer swaps in the body pi would send (go-openai's
// request struct cannot express several of its fields, see request.go), adds the model's and the
// call's headers, keeps the response so the stream is read by our SSE reader, and records the start
// of an error body so the server's own words reach the message.
type callDoer struct {
	client  *http.Client
	body    *requestBody
	headers map[string]string
	watch   *idleWatch
	// retries and sleep: failed attempts are sent again as pi's SDK does (see sendWithRetries).
	retries int
	sleep   func(context.Context, time.Duration) error

	stopClose func() bool

	called  bool
	err     error // what the HTTP client returned instead of a response
	resp    *http.Response
	errBody bytes.Buffer
}

func (d *callDoer) Do(req *http.Request) (*http.Response, error) {
	d.called = true
	resp, err := sendWithRetries(req, d.retries, d.sleep, d.send)
	if err != nil {
		d.err = err
		return nil, err
	}
	d.watch.touch()
	// Cancellation (abort, idle timeout) closes the body, which ends a blocked read even when the
	// RoundTripper underneath does not watch the request's context (an in-process one, say).
	body := resp.Body
	d.stopClose = context.AfterFunc(req.Context(), func() { body.Close() })
	resp.Body = &watchedBody{rc: body, watch: d.watch}
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		// go-openai reads the whole error body; keep what it reads.
		resp.Body = &teeBody{ReadCloser: resp.Body, buf: &d.errBody}
	}
	d.resp = resp
	return resp, nil
}

// send makes one attempt.
func (d *callDoer) send(req *http.Request) (*http.Response, error) {
	req.Body = d.body.reader()
	req.GetBody = func() (io.ReadCloser, error) { return d.body.reader(), nil }
	req.ContentLength = d.body.size
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	d.watch.touch()
	return resp, err
}

// close releases the response, if any.
func (d *callDoer) close() {
	if d.stopClose != nil {
		d.stopClose()
	}
	if d.resp != nil {
		d.resp.Body.Close()
	}
}

// retryAfter returns the wait the server asked for (retry-after-ms or Retry-After), if it did.
func (d *callDoer) retryAfter() (time.Duration, bool) {
	if d.resp == nil {
		return 0, false
	}
	wait, ok := serverRetryWait(d.resp.Header, time.Now())
	return max(wait, 0), ok
}

type teeBody struct {
	io.ReadCloser
	buf *bytes.Buffer
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if room := maxErrorBody - t.buf.Len(); room > 0 && n > 0 {
		t.buf.Write(p[:min(n, room)])
	}
	return n, err
}

type watchedBody struct {
	rc    io.ReadCloser
	watch *idleWatch
}

func (w *watchedBody) Read(p []byte) (int, error) {
	n, err := w.rc.Read(p)
	if n > 0 {
		w.watch.touch()
	}
	return n, err
}

func (w *watchedBody) Close() error { return w.rc.Close() }
