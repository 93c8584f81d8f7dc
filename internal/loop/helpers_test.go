package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var testModel = &provider.Model{ID: "mock-model", Name: "Mock", API: provider.APIOpenAICompletions, Provider: "mock"}

// step scripts one LLM response. It builds the message with b (which emits the events) and returns it.
type step func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage

// script is a StreamFunc that plays its steps in order and records every request.
type script struct {
	t     testing.TB
	steps []step

	mu       sync.Mutex
	requests []*provider.Request
}

func newScript(t testing.TB, steps ...step) *script { return &script{t: t, steps: steps} }

func (s *script) stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	s.mu.Lock()
	i := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	b := provider.NewStreamBuilder(req.Model, emit)
	if i >= len(s.steps) {
		s.t.Errorf("unexpected LLM request #%d", i+1)
		return b.Fail(provider.StopReasonError, "unexpected request")
	}
	// A request made after abort ends at once, as a provider does when its HTTP request is cancelled.
	if ctx.Err() != nil {
		return b.Fail(provider.StopReasonAborted, "Request was aborted")
	}
	return s.steps[i](ctx, req, b)
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *script) request(i int) *provider.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

// reply answers with text; during (if any) runs after the text streamed and before the stream ends.
func reply(text string, during ...func()) step {
	return func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Start()
		b.Text(text)
		for _, f := range during {
			f()
		}
		return b.Finish()
	}
}

type callSpec struct{ id, name, args string }

func call(id, name, args string) callSpec { return callSpec{id, name, args} }

// callTools answers with tool calls (stop reason toolUse).
func callTools(calls []callSpec, during ...func()) step {
	return func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Start()
		for i, c := range calls {
			idx := i
			b.ToolCall(&idx, c.id, c.name, c.args)
		}
		for _, f := range during {
			f()
		}
		b.SetStopReason("tool_calls", provider.StopReasonToolUse, "")
		return b.Finish()
	}
}

// recorder collects events as short strings.
type recorder struct {
	mu     sync.Mutex
	lines  []string
	events []Event
	on     func(Event)
}

func (r *recorder) push(ev Event) {
	r.mu.Lock()
	r.lines = append(r.lines, describeEvent(ev))
	r.events = append(r.events, ev)
	on := r.on
	r.mu.Unlock()
	if on != nil {
		on(ev)
	}
}

func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

func msgLabel(m provider.Message) string {
	switch x := m.(type) {
	case *provider.UserMessage:
		return "user:" + provider.TextOf(x.Content, "")
	case *provider.AssistantMessage:
		return "assistant:" + string(x.StopReason)
	case *provider.ToolResultMessage:
		if x.IsError {
			return "toolResult:" + x.ToolCallID + ":error"
		}
		return "toolResult:" + x.ToolCallID
	case *provider.SystemMessage:
		// system[§section ...][+added ...][-removed ...]
		var parts []string
		for _, sec := range x.Sections {
			parts = append(parts, "§"+sec.Name)
		}
		for _, t := range x.ToolsAdded {
			parts = append(parts, "+"+t.Name)
		}
		for _, name := range x.ToolsRemoved {
			parts = append(parts, "-"+name)
		}
		return "system:" + strings.Join(parts, " ")
	case nil:
		return "nil"
	}
	return m.Role()
}

func describeEvent(ev Event) string {
	switch ev.Type {
	case EventMessageStart, EventMessageEnd:
		m := msgLabel(ev.Message)
		if ev.Type == EventMessageStart {
			if _, ok := ev.Message.(*provider.AssistantMessage); ok {
				m = "assistant" // the partial's stop reason is meaningless
			}
		}
		return string(ev.Type) + " " + m
	case EventMessageUpdate:
		return fmt.Sprintf("message_update %s %d", ev.AssistantEvent.Type, ev.AssistantEvent.ContentIndex)
	case EventToolExecutionStart, EventToolExecutionUpdate:
		return string(ev.Type) + " " + ev.ToolCallID
	case EventToolExecutionEnd:
		if ev.IsError {
			return string(ev.Type) + " " + ev.ToolCallID + " error"
		}
		return string(ev.Type) + " " + ev.ToolCallID
	case EventTurnEnd:
		ids := make([]string, len(ev.ToolResults))
		for i, r := range ev.ToolResults {
			ids[i] = msgLabel(r)
		}
		return "turn_end " + msgLabel(ev.Message) + " [" + strings.Join(ids, ",") + "]"
	case EventAgentEnd:
		labels := make([]string, len(ev.Messages))
		for i, m := range ev.Messages {
			labels[i] = msgLabel(m)
		}
		return "agent_end [" + strings.Join(labels, ",") + "]"
	}
	return string(ev.Type)
}

// Expected-sequence builders.

func seq(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			out = append(out, x)
		case []string:
			out = append(out, x...)
		default:
			panic(fmt.Sprintf("seq: %T", p))
		}
	}
	return out
}

func userEvents(text string) []string {
	return []string{"message_start user:" + text, "message_end user:" + text}
}

func textEvents() []string {
	return []string{"message_start assistant", "message_update text_start 0", "message_update text_delta 0",
		"message_update text_end 0", "message_end assistant:stop"}
}

func toolCallEvents(n int) []string {
	out := []string{"message_start assistant"}
	for i := range n {
		out = append(out, fmt.Sprintf("message_update toolcall_start %d", i), fmt.Sprintf("message_update toolcall_delta %d", i))
	}
	for i := range n {
		out = append(out, fmt.Sprintf("message_update toolcall_end %d", i))
	}
	return append(out, "message_end assistant:toolUse")
}

func resultEvents(id string, isError bool) []string {
	label := "toolResult:" + id
	if isError {
		label += ":error"
	}
	return []string{"message_start " + label, "message_end " + label}
}

func diffLines(t testing.TB, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	var b strings.Builder
	n := max(len(got), len(want))
	for i := range n {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "!="
		}
		fmt.Fprintf(&b, "%3d %s got %-45q want %q\n", i, mark, g, w)
	}
	t.Fatalf("event sequence differs:\n%s", b.String())
}

// testTool is a Tool made of functions.
type testTool struct {
	name       string
	schema     string
	sequential bool
	exec       func(ctx context.Context, call ToolCall, onUpdate func(ToolResult)) (ToolResult, error)
}

func (t *testTool) Definition() provider.ToolDefinition {
	schema := t.schema
	if schema == "" {
		schema = `{"type":"object","properties":{"text":{"type":"string"}}}`
	}
	return provider.ToolDefinition{Name: t.name, Description: "test tool " + t.name, Parameters: json.RawMessage(schema)}
}

func (t *testTool) Execute(ctx context.Context, call ToolCall, onUpdate func(ToolResult)) (ToolResult, error) {
	if t.exec == nil {
		return textResult("ok " + string(call.Args)), nil
	}
	return t.exec(ctx, call, onUpdate)
}

type sequentialTool struct{ *testTool }

func (sequentialTool) ExecutionMode() ExecutionMode { return ExecutionSequential }

func textResult(s string) ToolResult {
	return ToolResult{Content: []provider.Content{provider.TextContent(s)}}
}

// newTestAgent builds an agent over the script with a recorder subscribed.
func newTestAgent(t testing.TB, s *script, cfg Config, tools ...Tool) (*Agent, *recorder) {
	cfg.Stream = s.stream
	a := NewAgent(cfg, State{SystemPrompt: "be brief", Model: testModel, Tools: tools})
	rec := &recorder{}
	a.Subscribe(rec.push)
	return a, rec
}

func user(text string) *provider.UserMessage { return provider.NewUserMessage(text) }

func resultText(m provider.Message) string {
	if r, ok := m.(*provider.ToolResultMessage); ok {
		return provider.TextOf(r.Content, "")
	}
	return ""
}

func roles(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = msgLabel(m)
	}
	return out
}
