package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
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
		Proxy:                 provider.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 10 * time.Minute,
		ExpectContinueTimeout: time.Second,
	}}
}

// httpCall is one chat-completions request: the body pi would send (written while it is sent,
// bodystream.go), the headers, the idle watch that every byte touches, and pi's SDK's retries.
type httpCall struct {
	client  *http.Client
	url     string
	apiKey  string
	body    *requestBody
	headers map[string]string // the model's and the call's, set last: they win
	watch   *idleWatch
	// retries and sleep: failed attempts are sent again as pi's SDK does (see sendWithRetries).
	retries int
	sleep   func(context.Context, time.Duration) error

	stopClose func() bool

	sent    bool           // the request was built and handed to the HTTP client
	resp    *http.Response // the response, whatever its status
	errBody []byte         // the start of an error response's body, to quote the server's words
}

// errStatus reports an error status; httpCall.resp and errBody say which and why.
var errStatus = errors.New("error status")

// do sends the request. It returns nil once a response with a success status has begun (its body is
// c.resp.Body), errStatus for an error status (below 200 or from 400), or why nothing answered.
func (c *httpCall) do(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, nil)
	if err != nil {
		return err
	}
	// The headers pi-go has always sent (they were go-openai's): the body is JSON, the answer an
	// event stream that no cache may hold.
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Set("Connection", "keep-alive")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	c.sent = true
	resp, err := sendWithRetries(req, c.retries, c.sleep, c.attempt)
	if err != nil {
		return err
	}
	c.watch.touch()
	// Cancellation (abort, idle timeout) closes the body, which ends a blocked read even when the
	// RoundTripper underneath does not watch the request's context (an in-process one, say).
	body := resp.Body
	c.stopClose = context.AfterFunc(ctx, func() { body.Close() })
	resp.Body = &watchedBody{rc: body, watch: c.watch}
	c.resp = resp
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		c.errBody, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return errStatus
	}
	return nil
}

// attempt sends the request once, with the body written afresh.
func (c *httpCall) attempt(req *http.Request) (*http.Response, error) {
	req.Body = c.body.reader()
	req.GetBody = func() (io.ReadCloser, error) { return c.body.reader(), nil }
	req.ContentLength = c.body.size
	resp, err := c.client.Do(req)
	c.watch.touch()
	return resp, err
}

// close releases the response, if any.
func (c *httpCall) close() {
	if c.stopClose != nil {
		c.stopClose()
	}
	if c.resp != nil {
		c.resp.Body.Close()
	}
}

// retryAfter returns the wait the server asked for (retry-after-ms or Retry-After), if it did.
func (c *httpCall) retryAfter() (time.Duration, bool) {
	if c.resp == nil {
		return 0, false
	}
	return provider.ServerRetryWait(c.resp.Header, time.Now())
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
