package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// testKey is the API key of every test; no error text may contain it.
const testKey = "sk-test-6f1d2c3b4a5e6f708192a3b4c5d6e7f8"

func testModel(baseURL string) *provider.Model {
	return &provider.Model{
		ID: "test-model", Name: "Test", API: provider.APIOpenAICompletions, Provider: "test",
		BaseURL: baseURL, Input: []string{"text", "image"}, ContextWindow: 128000, MaxTokens: 16384,
		Cost: provider.ModelCost{Input: 2.5, Output: 10, CacheRead: 1.25},
	}
}

// newTestProvider returns a provider whose connections are closed when the test ends.
func newTestProvider(t testing.TB, cfg Config) *Provider {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{}}
	}
	t.Cleanup(cfg.HTTPClient.CloseIdleConnections)
	return New(cfg)
}

// run streams req and checks the event contract on the way.
func run(t testing.TB, p *Provider, ctx context.Context, req *provider.Request) (*provider.AssistantMessage, []*provider.AssistantEvent) {
	t.Helper()
	if req.Options.APIKey == "" {
		req.Options.APIKey = testKey
	}
	var events []*provider.AssistantEvent
	msg := p.Stream(ctx, req, func(e *provider.AssistantEvent) { events = append(events, asEmitted(e)) })
	checkContract(t, msg, events)
	return msg, events
}

// asEmitted is e with its partial message as it was when e was emitted (the stream goes on changing
// the message an event points to).
func asEmitted(e *provider.AssistantEvent) *provider.AssistantEvent {
	c := *e
	if e.Partial != nil {
		c.Partial = e.Snapshot()
	}
	return &c
}

// checkContract verifies what every stream must satisfy: at most one start, first; blocks opened,
// extended and closed in order; exactly one terminal event, last, carrying the returned message; no key
// in any error text; and a final message that serialises.
func checkContract(t testing.TB, msg *provider.AssistantMessage, events []*provider.AssistantEvent) {
	t.Helper()
	if msg == nil {
		t.Fatal("Stream returned nil")
	}
	if len(events) == 0 {
		t.Fatal("no events")
	}
	last := events[len(events)-1]
	if last.Type != provider.EventDone && last.Type != provider.EventError {
		t.Fatalf("last event %s, want done or error", last.Type)
	}
	if last.Message != msg {
		t.Fatalf("terminal event message is not the returned message")
	}
	if last.Reason != msg.StopReason {
		t.Fatalf("terminal reason %s, message stop reason %s", last.Reason, msg.StopReason)
	}
	open := map[int]provider.AssistantEventType{}
	closed := map[int]bool{}
	for i, e := range events {
		switch e.Type {
		case provider.EventStart:
			if i != 0 {
				t.Fatalf("start at position %d", i)
			}
		case provider.EventTextStart, provider.EventThinkingStart, provider.EventToolCallStart:
			if i == 0 || events[0].Type != provider.EventStart {
				t.Fatalf("%s before start", e.Type)
			}
			if _, ok := open[e.ContentIndex]; ok {
				t.Fatalf("block %d opened twice", e.ContentIndex)
			}
			open[e.ContentIndex] = e.Type
		case provider.EventTextDelta, provider.EventThinkingDelta, provider.EventToolCallDelta,
			provider.EventTextEnd, provider.EventThinkingEnd, provider.EventToolCallEnd:
			if _, ok := open[e.ContentIndex]; !ok {
				t.Fatalf("%s on block %d that was not opened", e.Type, e.ContentIndex)
			}
			if closed[e.ContentIndex] {
				t.Fatalf("%s on closed block %d", e.Type, e.ContentIndex)
			}
			if strings.HasSuffix(string(e.Type), "_end") {
				closed[e.ContentIndex] = true
			}
		case provider.EventDone, provider.EventError:
			if i != len(events)-1 {
				t.Fatalf("%s at position %d of %d", e.Type, i, len(events))
			}
		}
		if e.Type != provider.EventDone && e.Type != provider.EventError && e.Partial == nil {
			t.Fatalf("%s without partial", e.Type)
		}
	}
	if msg.StopReason != provider.StopReasonError && msg.StopReason != provider.StopReasonAborted {
		if len(closed) != len(open) {
			t.Fatalf("done with %d blocks open", len(open)-len(closed))
		}
	}
	if strings.Contains(msg.ErrorMessage, testKey) {
		t.Fatalf("error message leaks the API key: %s", msg.ErrorMessage)
	}
	if msg.StopReason == provider.StopReasonError || msg.StopReason == provider.StopReasonAborted {
		if msg.ErrorMessage == "" {
			t.Fatal("failed message without error message")
		}
	}
	for _, c := range msg.Content {
		if c.PartialArgs != nil || c.StreamIndex != nil {
			t.Fatalf("final block keeps streaming bookkeeping: %+v", c)
		}
		if c.Type == provider.ContentToolCall && !json.Valid(c.Arguments) {
			t.Fatalf("tool call arguments are not JSON: %s", c.Arguments)
		}
	}
	if _, err := msg.MarshalJSON(); err != nil {
		t.Fatalf("final message does not serialise: %v", err)
	}
}

// eventTypes lists the event types, for comparing sequences.
func eventTypes(events []*provider.AssistantEvent) string {
	var b strings.Builder
	for i, e := range events {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(e.Type))
		switch e.Type {
		case provider.EventStart, provider.EventDone, provider.EventError:
		default:
			fmt.Fprintf(&b, ":%d", e.ContentIndex)
		}
	}
	return b.String()
}

func userText(text string) *provider.UserMessage {
	return &provider.UserMessage{Content: []provider.Content{provider.TextContent(text)}, Timestamp: 1}
}

func simpleRequest(m *provider.Model) *provider.Request {
	return &provider.Request{Model: m, SystemPrompt: "You are a test.", Messages: []provider.Message{userText("hi")}}
}

func startServer(t testing.TB) *openaitest.Server { return openaitest.Start(t) }

// buildBody writes the whole chat-completions request body for req into one slice, its messages
// converted and written as structs in one go (tests compare it with what the streamed body sends;
// Stream sends a requestBody, which never holds the body in memory and reads the transcript's
// messages back from the conversion's spill).
func buildBody(req *provider.Request, c *compat) ([]byte, error) {
	rb, err := newRequestBody(req, c)
	if err != nil {
		return nil, err
	}
	msgs := convertMessages(req, c)
	if c.anthropicCacheControl {
		markForPromptCache(msgs)
	}
	dst := append(make([]byte, 0, rb.size), rb.head...)
	w := &jsonWriter{}
	for i := range msgs {
		w.reset()
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.message(&msgs[i])
		dst = append(dst, w.b...)
	}
	return append(dst, rb.tail...), nil
}

// markForPromptCache is Anthropic's prompt-cache marking as pi does it, on a whole list: the first
// system or developer message, and the last user or assistant message with a text.
func markForPromptCache(msgs []wireMessage) {
	for i := range msgs {
		if msgs[i].role == "system" || msgs[i].role == "developer" {
			markLastText(&msgs[i].content)
			break
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if (msgs[i].role == "user" || msgs[i].role == "assistant") && markLastText(&msgs[i].content) {
			return
		}
	}
}
