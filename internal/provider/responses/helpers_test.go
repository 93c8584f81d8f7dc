package responses

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// script is a loopback server that answers each request with the next handler and keeps the bodies.
type script struct {
	srv      *httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	paths    []string
	handlers []http.HandlerFunc
}

func newScript(t *testing.T, handlers ...http.HandlerFunc) *script {
	t.Helper()
	s := &script{handlers: handlers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// sse answers with an event stream.
func sse(stream string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}
}

// status answers with an error status and body.
func status(code int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// pi16Model is the model of the recorded runs (scripts/interop/record-apis).
func pi16Model(base string) *provider.Model {
	return &provider.Model{ID: "mock-resp", Name: "Mock Responses", API: provider.APIOpenAIResponses, Provider: "mockresp",
		BaseURL: base + "/v1", Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 32000,
		Cost: provider.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}}
}

// collect streams req and returns the events and the final message.
func collect(t *testing.T, ctx context.Context, req *provider.Request) ([]*provider.AssistantEvent, *provider.AssistantMessage) {
	t.Helper()
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(ctx, req, func(e *provider.AssistantEvent) { events = append(events, e) })
	return events, msg
}

func eventTypes(events []*provider.AssistantEvent) string {
	var b strings.Builder
	for i, e := range events {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(e.Type))
	}
	return b.String()
}

func userRequest(m *provider.Model, text string) *provider.Request {
	return &provider.Request{Model: m, SystemPrompt: "Be brief.", Messages: []provider.Message{provider.NewUserMessage(text)},
		Options: provider.StreamOptions{APIKey: "sk-test-key"}}
}
