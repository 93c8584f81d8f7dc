// Package openaitest runs a scripted OpenAI-compatible chat-completions server on 127.0.0.1, for the
// tests of any package and for end-to-end tests of the binary. Each request to POST /v1/chat/completions
// takes the next scripted Response: an SSE stream replayed event by event (with optional pacing), a
// status with a body, or a failure on purpose (connection reset, hang-up, stall, keep-alive comments and
// nothing else, a body trickling in byte by byte). Every request is recorded with its headers and body.
//
// It knows the OpenAI wire format and net/http; it knows nothing of pi-go's provider code, so tests of
// that code cannot pass by sharing its mistakes.
package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// End says how a response finishes after its events.
type End int

const (
	// EndClose finishes the response normally.
	EndClose End = iota
	// EndReset aborts the TCP connection (RST): the client sees "connection reset by peer".
	EndReset
	// EndHangup closes the connection without finishing the chunked body: the client sees an
	// unexpected EOF.
	EndHangup
	// EndStall keeps the connection open and sends nothing more until the client goes away or the
	// server is closed.
	EndStall
	// EndKeepAlive keeps the connection open and sends an SSE comment (": keep-alive") every
	// Response.KeepAlive, and nothing else, until the client goes away or the server is closed.
	EndKeepAlive
)

// DefaultKeepAlive is the pause between the comments of EndKeepAlive when Response.KeepAlive is 0.
const DefaultKeepAlive = 5 * time.Millisecond

// Response is what the server answers to one request.
type Response struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the response headers.
	Header http.Header
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Body is written as is (Content-Type application/json unless Header says otherwise). Use it for
	// error statuses and for non-SSE answers.
	Body string
	// Events are written and flushed one at a time, each exactly as given (framing included: see Data,
	// Comment and Done). Content-Type is text/event-stream.
	Events []string
	// Raw is written after Events in large writes with one flush: long streams (see LongText).
	Raw []byte
	// BeforeHeaders, when set, must deliver a value (or be closed) before anything is written: a server
	// that accepted the request and has not answered yet.
	BeforeHeaders <-chan struct{}
	// Delay pauses before each event: a human-paced stream for demos and end-to-end tests.
	Delay time.Duration
	// Trickle, when set, writes the events one byte at a time, flushed, with this pause before each
	// byte: a server whose bytes keep coming while a whole chunk takes long to arrive.
	Trickle time.Duration
	// KeepAlive is the pause between the comments of EndKeepAlive (0: DefaultKeepAlive).
	KeepAlive time.Duration
	// Gate, when set, must deliver a value before each event is written: the test paces the stream.
	Gate <-chan struct{}
	// BeforeEnd, when set, must deliver a value (or be closed) before the End action.
	BeforeEnd <-chan struct{}
	// Sent, when set, receives the index of each event once it is flushed (the sender blocks until the
	// test receives it, unless the channel is buffered).
	Sent chan<- int
	// End is what happens after the events.
	End End
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Decode unmarshals the request body into v.
func (r *Request) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// JSON returns the body decoded into generic values (maps, slices, float64), for comparisons.
func (r *Request) JSON() (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(r.Body, &m)
	return m, err
}

// Server is a running scripted server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to configure a model with: "http://127.0.0.1:<port>/v1".
	URL string

	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu        sync.Mutex
	queue     []Response
	responder func(*Request) Response
	fallback  *Response
	requests  []*Request
	changed   chan struct{} // closed and replaced whenever a request is recorded
}

// NewServer starts a server on 127.0.0.1; Close stops it.
func NewServer() *Server {
	s := &Server{closing: make(chan struct{}), changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Start starts a server that is closed when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s := NewServer()
	tb.Cleanup(s.Close)
	return s
}

// Close releases stalled responses, then stops the server and waits for its handlers.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Client returns an HTTP client for the server (plain net/http; no proxy).
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Enqueue scripts the answers to the next requests, one Response per request, in order.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// SetFallback sets the answer for requests that find the queue empty. Without one they get a 500
// whose message says that nothing was scripted.
func (s *Server) SetFallback(r Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &r
}

// SetResponder sets a function that computes the answer to each request that finds the queue empty,
// from the request itself (a server with a context window, say: see Window). It takes precedence over
// the fallback.
func (s *Server) SetResponder(f func(*Request) Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = f
}

// Pending returns how many queued responses have not been served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// WaitRequest waits until the n-th request (1-based) has arrived and returns it.
func (s *Server) WaitRequest(ctx context.Context, n int) (*Request, error) {
	for {
		s.mu.Lock()
		if len(s.requests) >= n {
			r := s.requests[n-1]
			s.mu.Unlock()
			return r, nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for request %d: %w", n, ctx.Err())
		}
	}
}

func (s *Server) record(r *http.Request, body []byte) (int, *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := &Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.requests = append(s.requests, req)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(s.requests), req
}

func (s *Server) next(n int, req *Request) Response {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	responder, fallback := s.responder, s.fallback
	s.mu.Unlock()
	if responder != nil {
		return responder(req) // outside the lock: it may call the server's methods
	}
	if fallback != nil {
		return *fallback
	}
	return ErrorResponse(http.StatusInternalServerError,
		fmt.Sprintf("openaitest: no response scripted for request %d", n))
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	n, req := s.record(r, body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeResponse(w, ErrorResponse(http.StatusNotFound,
			fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)))
		return
	}
	s.serve(w, r, s.next(n, req))
}

func writeResponse(w http.ResponseWriter, resp Response) {
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if resp.RetryAfter != "" {
		w.Header().Set("Retry-After", resp.RetryAfter)
	}
	if w.Header().Get("Content-Type") == "" {
		if resp.Events != nil || resp.Raw != nil {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if resp.Body != "" {
		io.WriteString(w, resp.Body)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, resp Response) {
	if !s.wait(r, resp.BeforeHeaders) {
		return
	}
	if resp.Events != nil || resp.Raw != nil {
		w.Header().Set("Cache-Control", "no-cache")
	}
	writeResponse(w, resp)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	flush()
	for i, ev := range resp.Events {
		if !s.wait(r, resp.Gate) {
			return
		}
		if !s.pause(r, resp.Delay) {
			return
		}
		if resp.Trickle > 0 {
			for j := 0; j < len(ev); j++ {
				if !s.pause(r, resp.Trickle) {
					return
				}
				if _, err := io.WriteString(w, ev[j:j+1]); err != nil {
					return
				}
				flush()
			}
		} else {
			if _, err := io.WriteString(w, ev); err != nil {
				return
			}
			flush()
		}
		if resp.Sent != nil {
			select {
			case resp.Sent <- i:
			case <-r.Context().Done():
				return
			case <-s.closing:
				return
			}
		}
	}
	if len(resp.Raw) > 0 {
		if _, err := w.Write(resp.Raw); err != nil {
			return
		}
		flush()
	}
	if !s.wait(r, resp.BeforeEnd) {
		return
	}
	switch resp.End {
	case EndReset, EndHangup:
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			return
		}
		if tcp, ok := conn.(*net.TCPConn); ok && resp.End == EndReset {
			tcp.SetLinger(0)
		}
		conn.Close()
	case EndStall:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	case EndKeepAlive:
		every := resp.KeepAlive
		if every <= 0 {
			every = DefaultKeepAlive
		}
		for s.pause(r, every) {
			if _, err := io.WriteString(w, Comment("keep-alive")); err != nil {
				return
			}
			flush()
		}
	}
}

// pause waits d (nothing when d ≤ 0), giving up when the client leaves or the server closes.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// wait receives from gate (when set), giving up when the client leaves or the server closes.
func (s *Server) wait(r *http.Request, gate <-chan struct{}) bool {
	if gate == nil {
		return true
	}
	select {
	case <-gate:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// ClosedURL returns a base URL on 127.0.0.1 where nothing listens (a port just released: a server
// that is not running, a mistyped --base-url), and its host:port.
func ClosedURL(tb testing.TB) (baseURL, addr string) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr = l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1", addr
}
