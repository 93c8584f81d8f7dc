package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
)

// RequestHooks see the HTTP exchange of one model request, whatever its API: pi's
// before_provider_request (the payload about to be sent, which may be replaced) and
// after_provider_response (the status and headers of a successful response, before its body is
// read). The caller puts them on the request's context (WithRequestHooks); the API packages' HTTP
// clients (HookClient) apply them. A context without hooks costs one context lookup per request.
type RequestHooks interface {
	// BeforeRequest returns the body to send instead of body; body itself keeps it. body is the
	// encoded request as the API package built it (JSON).
	BeforeRequest(ctx context.Context, body []byte) []byte
	// AfterResponse is told a successful (2xx) response's status and headers, the header names in
	// lower case and repeated values joined with ", " (what pi's fetch Headers give).
	AfterResponse(ctx context.Context, status int, headers map[string]string)
}

// HeaderHooks is the optional part of RequestHooks for pi's before_provider_headers: the request's
// headers, once assembled, handed over for changes. headers holds the names in lower case, repeated
// values joined with ", ", without the credential headers (credentialHeaders), which are the API
// key's; the result is the record as the hooks left it, a nil value or a missing name deleting that
// header. Returning headers itself (or nil) changes nothing.
type HeaderHooks interface {
	BeforeHeaders(ctx context.Context, headers map[string]string) map[string]*string
}

// credentialHeaders are not shown to BeforeHeaders: pi's record holds the provider's extra headers,
// not its API key, and a hook may still set or delete these by naming them.
var credentialHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true, "x-goog-api-key": true, "api-key": true,
}

// headerEdit is what BeforeHeaders changed: the values to set and the names to delete.
type headerEdit struct {
	set map[string]string
	del []string
}

func (e *headerEdit) apply(h http.Header) {
	for _, name := range e.del {
		h.Del(name)
	}
	for name, v := range e.set {
		h.Set(name, v)
	}
}

func headerEditOf(before map[string]string, after map[string]*string) *headerEdit {
	e := &headerEdit{set: map[string]string{}}
	for name := range before {
		if _, ok := after[name]; !ok {
			e.del = append(e.del, name)
		}
	}
	for name, v := range after {
		switch {
		case v == nil:
			e.del = append(e.del, name)
		case before[strings.ToLower(name)] != *v || strings.ToLower(name) != name:
			e.set[name] = *v
		}
	}
	return e
}

type requestHooksKey struct{}

// hookState is one model request's hooks. The API packages may send a request again (their own
// retries of a refused attempt); the same body is then not handed to BeforeRequest a second time,
// as pi's providers run onPayload once and retry with its result.
type hookState struct {
	hooks RequestHooks

	mu             sync.Mutex
	asked, replied []byte
	headers        *headerEdit // BeforeHeaders' changes, asked once and applied to every attempt
}

// WithRequestHooks returns ctx carrying h for the requests sent under it (nil h: ctx itself).
func WithRequestHooks(ctx context.Context, h RequestHooks) context.Context {
	if h == nil {
		return ctx
	}
	return context.WithValue(ctx, requestHooksKey{}, &hookState{hooks: h})
}

func (st *hookState) before(ctx context.Context, body []byte) []byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.asked != nil && bytes.Equal(st.asked, body) {
		return st.replied
	}
	st.asked, st.replied = body, st.hooks.BeforeRequest(ctx, body)
	return st.replied
}

// editHeaders applies the HeaderHooks' changes to h (a clone of the request's headers).
func (st *hookState) editHeaders(ctx context.Context, hh HeaderHooks, h http.Header) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.headers == nil {
		before := headerRecord(h)
		for name := range credentialHeaders {
			delete(before, name)
		}
		after := hh.BeforeHeaders(ctx, before)
		if after == nil {
			st.headers = &headerEdit{}
		} else {
			st.headers = headerEditOf(before, after)
		}
	}
	st.headers.apply(h)
}

// HookClient returns a copy of c (nil: a client on http.DefaultTransport) whose transport applies the
// RequestHooks of each request's context before handing it to c's transport.
func HookClient(c *http.Client) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	if _, ok := c.Transport.(*hookTransport); ok {
		return c
	}
	hc := *c
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &hookTransport{base: base}
	return &hc
}

type hookTransport struct{ base http.RoundTripper }

func (t *hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st, _ := ctx.Value(requestHooksKey{}).(*hookState)
	if st == nil {
		return t.base.RoundTrip(req)
	}
	origReq := req
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = st.before(ctx, body)
		req = req.Clone(ctx)
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if hh, ok := st.hooks.(HeaderHooks); ok {
		if req == origReq { // a request with a body was cloned above, its headers with it
			req = req.Clone(ctx)
		}
		st.editHeaders(ctx, hh, req.Header)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		st.hooks.AfterResponse(ctx, resp.StatusCode, headerRecord(resp.Header))
		if sh, ok := st.hooks.(StreamEventHooks); ok {
			tapStream(ctx, sh, resp)
		}
	}
	return resp, err
}

// headerRecord is h as pi's headersToRecord gives it.
func headerRecord(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}
