package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// okTool answers every call with "ok".
type okTool struct{}

func (okTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: "ok", Description: "Says ok.", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)}
}

func (okTool) Execute(context.Context, loop.ToolCall, func(loop.ToolResult)) (loop.ToolResult, error) {
	return loop.ToolResult{Content: []provider.Content{provider.TextContent("ok")}}, nil
}

// bytesPerToolCall runs one prompt whose answer calls the ok tool n times, through the real provider,
// the loop, the tool batch and the session file, and returns the bytes allocated per call.
func bytesPerToolCall(t *testing.T, n int) uint64 {
	t.Helper()
	srv := openaitest.Start(t)
	calls := make([]openaitest.ToolCallSpec, n)
	for i := range calls {
		calls[i] = openaitest.ToolCallSpec{ID: fmt.Sprintf("call_%d", i), Name: "ok", Arguments: fmt.Sprintf(`{"n":%d}`, i)}
	}
	srv.Enqueue(openaitest.ToolCallReply("m1", "", calls...), openaitest.TextReply("m1", "done"))
	model := *testModel
	model.BaseURL = srv.URL
	dir := t.TempDir()
	s, err := New(Options{
		Cwd:      dir,
		Settings: config.InMemorySettings(config.Settings{}),
		Store:    session.Create(dir, filepath.Join(dir, "sessions")),
		Stream:   openai.New(openai.Config{HTTPClient: srv.Client()}).Stream,
		Model:    &model,
		Tools:    []loop.Tool{okTool{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := s.Prompt(context.Background(), "call it", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	msgs := s.Messages()
	if last, ok := msgs[len(msgs)-1].(*provider.AssistantMessage); !ok || provider.TextOf(last.Content, "") != "done" || len(msgs) != n+4 { // system, user, answer, n results, answer
		t.Fatalf("%d messages, last %T", len(msgs), msgs[len(msgs)-1])
	}
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}

// One answer with many tool calls costs memory in proportion to the calls: every stream event used to
// copy the whole message so far (1,000 calls: 300 MB; 10,000: 23.6 GB, the process was killed).
func TestManyToolCallsCostLinearMemory(t *testing.T) {
	small, large := bytesPerToolCall(t, 500), bytesPerToolCall(t, 2000)
	t.Logf("bytes per tool call: %d at 500 calls, %d at 2000", small, large)
	if large > 2*small {
		t.Errorf("a call costs %d bytes in an answer of 2000 calls, %d in one of 500: quadratic", large, small)
	}
}
