// Package loopback is test support for the API packages: an HTTP server on 127.0.0.1 that answers each
// request with the next of a list of handlers and keeps what it was sent (bodies, headers, paths), so
// a test can script a conversation with a vendor's exact wire format and then look at the requests.
package loopback

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server answers the n-th request with the n-th handler; a request beyond the list gets a 500.
type Server struct {
	URL string // base URL, http://127.0.0.1:port

	srv      *httptest.Server
	handlers []http.HandlerFunc
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	paths    []string
}

// New starts a server that is closed when the test ends.
func New(t testing.TB, handlers ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{handlers: handlers}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	if n >= len(s.handlers) {
		http.Error(w, "unexpected request", http.StatusInternalServerError)
		return
	}
	s.handlers[n](w, r)
}

// Close stops the server now (a test of a server that went away).
func (s *Server) Close() { s.srv.Close() }

// Count is the number of requests received so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Body is the body of request i (from 0).
func (s *Server) Body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Header is the header of request i.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// Path is the URL path of request i.
func (s *Server) Path(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[i]
}

// SSE answers with an event stream.
func SSE(stream string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}
}

// Status answers with an error status and a JSON body; headers are name, value pairs.
func Status(code int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}
