// Package anthropictest runs a scripted Anthropic Messages server on 127.0.0.1, for the tests of any
// package, for end-to-end tests of the binary and for recording what pi sends. Each POST to
// /v1/messages takes the next scripted Reply: an SSE stream in Anthropic's event shapes, or a status with
// a body (overload, rate limit). With nothing scripted it answers a short text. Every request is
// recorded with its headers and body, and the server's prompt-cache simulation (see Cache) fills each
// answer's usage from what the request's cache_control breakpoints would read and write.
//
// It knows the Anthropic wire format and net/http; it knows nothing of pi-go's provider code.
package anthropictest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Reply is what the server answers to one request.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the response headers (e.g. retry-after).
	Header map[string]string
	// Body is written as is for an error status (Content-Type application/json).
	Body string
	// Answer is streamed as SSE when Status is 0 or 200 and Raw is empty.
	Answer Answer
	// Raw, when set, is written as the whole SSE body instead of Answer's events.
	Raw string
	// Stall, with Raw, keeps the connection open after Raw and sends nothing more until the client
	// goes away or the server closes: a stream that stalled.
	Stall bool
}

// Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server is a scripted Anthropic Messages server.
type Server struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	replies  []Reply
	requests []Request
	answers  int
	// Cache simulates Anthropic's prompt cache for the usage of scripted answers.
	Cache *Cache
}

// New starts a server on 127.0.0.1; Close stops it.
func New() *Server {
	s := &Server{Cache: NewCache()}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Enqueue adds replies, answered in order.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	s.replies = append(s.replies, r...)
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"type":"model","id":"claude-test-1","display_name":"Claude Test 1"}],"has_more":false}`)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"Not found: %s %s"}}`, r.Method, r.URL.Path)
		return
	}
	var reply Reply
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	} else {
		reply = Reply{Answer: Answer{Blocks: []Block{Text("ok")}}}
	}
	s.answers++
	n := s.answers
	s.mu.Unlock()

	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if reply.Raw != "" {
		io.WriteString(w, reply.Raw)
		if flusher != nil {
			flusher.Flush()
		}
		if reply.Stall {
			<-r.Context().Done()
		}
		return
	}
	a := reply.Answer
	if a.ID == "" {
		a.ID = fmt.Sprintf("msg_test%08d", n)
	}
	if a.Model == "" {
		a.Model = modelOf(body)
	}
	if a.Usage == nil {
		u := s.Cache.Account(body)
		a.Usage = &u
	}
	for _, ev := range a.Events() {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}
