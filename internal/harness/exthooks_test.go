package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// echoTool returns its arguments as text.
type echoTool struct{}

func (echoTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: "echo", Description: "echoes", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}

func (echoTool) Execute(_ context.Context, c loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	return loop.ToolResult{Content: []provider.Content{provider.TextContent(string(c.Args))}}, nil
}

// scriptedHooks answers as an extension would: blocks "no" texts, rewrites "x" to "y", marks results,
// drops nothing from the context but counts it, adds a message and a system prompt.
type scriptedHooks struct {
	contextCalls int
	contextLen   int
}

func (h *scriptedHooks) ToolCall(_ context.Context, _, _ string, args json.RawMessage) ToolCallVerdict {
	switch {
	case strings.Contains(string(args), `"no"`):
		return ToolCallVerdict{Block: true, Reason: "blocked by test", Terminate: true}
	case strings.Contains(string(args), `"x"`):
		return ToolCallVerdict{Args: json.RawMessage(`{"text":"y"}`)}
	}
	return ToolCallVerdict{}
}

func (h *scriptedHooks) ToolResult(_ context.Context, r ToolResultInfo) *ToolResultChange {
	return &ToolResultChange{Content: []provider.Content{provider.TextContent("seen: " + r.Result.Content[0].Text)}}
}

func (h *scriptedHooks) Context(_ context.Context, msgs []provider.Message) []provider.Message {
	h.contextCalls++
	h.contextLen = len(msgs)
	for _, m := range msgs {
		if m.Role() == provider.RoleSystem {
			panic("context handlers must not see system messages")
		}
	}
	return nil
}

func (h *scriptedHooks) BeforeAgentStart(_ context.Context, prompt string, _ []provider.Content, systemPrompt string) ([]provider.Message, string) {
	msg := &provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("note for " + prompt)},
		ContentIsString: false, Display: true, Timestamp: provider.Now()}
	return []provider.Message{msg}, "EXT PROMPT"
}

func TestExtensionHooksActOnTheRun(t *testing.T) {
	hooks := &scriptedHooks{}
	f := newFixture(t, []scriptedTurn{toolTurn("echo", `{"text":"x"}`), textTurn("done")}, func(o *Options) {
		o.Tools = []loop.Tool{echoTool{}}
		o.Hooks = hooks
	})
	if err := f.s.Prompt(context.Background(), "hello", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	reqs := f.script.requests
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].SystemPrompt != "EXT PROMPT" {
		t.Fatalf("system prompt: %q", reqs[0].SystemPrompt)
	}
	var texts []string
	for _, m := range f.s.Messages() {
		switch m := m.(type) {
		case *provider.CustomMessage:
			texts = append(texts, "custom:"+provider.TextOf(m.Content, ""))
		case *provider.ToolResultMessage:
			texts = append(texts, "result:"+provider.TextOf(m.Content, ""))
		}
	}
	if got := strings.Join(texts, "|"); got != `custom:note for hello|result:seen: {"text":"y"}` {
		t.Fatalf("transcript: %s", got)
	}
	if hooks.contextCalls != 2 {
		t.Fatalf("context ran %d times", hooks.contextCalls)
	}
	// The override lasts for the operation only.
	if f.s.runPromptOverride() != "" {
		t.Fatal("the run's prompt outlived the run")
	}
}

func TestBlockedCallWithTerminateEndsTheRun(t *testing.T) {
	f := newFixture(t, []scriptedTurn{toolTurn("echo", `{"text":"no"}`), textTurn("never")}, func(o *Options) {
		o.Tools = []loop.Tool{echoTool{}}
		o.Hooks = &scriptedHooks{}
	})
	if err := f.s.Prompt(context.Background(), "hello", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if n := f.script.requestCount(); n != 1 {
		t.Fatalf("%d requests after a terminating block", n)
	}
	msgs := f.s.Messages()
	last, ok := msgs[len(msgs)-1].(*provider.ToolResultMessage)
	if !ok || !last.IsError || !strings.Contains(provider.TextOf(last.Content, ""), "blocked by test") {
		t.Fatalf("last message: %#v", msgs[len(msgs)-1])
	}
}

func TestSyncedExtensionToolsAreActive(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("ok")}, nil)
	f.s.SyncExtensionTools([]loop.Tool{echoTool{}})
	f.s.SyncExtensionTools([]loop.Tool{echoTool{}}) // twice: still one
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if tools := f.script.requests[0].Tools; len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("declared tools: %+v", tools)
	}
}

// promptedTool is an extension's tool with its own prompt lines.
type promptedTool struct {
	name, snippet string
	guidelines    []string
}

func (p promptedTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: p.name, Description: p.name, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (promptedTool) Execute(context.Context, loop.ToolCall, func(loop.ToolResult)) (loop.ToolResult, error) {
	return loop.ToolResult{}, nil
}

func (p promptedTool) PromptLines() (string, []string) { return p.snippet, p.guidelines }

// As pi 1.6, an extension tool's promptSnippet is its line in <tools> (on one line) and its guidelines
// join <rules> (trimmed, once); a tool that replaces a built-in one replaces its lines, even with none.
func TestExtensionToolsBringTheirPromptLines(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("ok"), textTurn("ok")}, func(o *Options) {
		o.Tools = []loop.Tool{promptedTool{name: "read", snippet: "Read file contents", guidelines: []string{"Use read to examine files instead of cat or sed."}}}
	})
	echo := promptedTool{name: "echo", snippet: "Echo  the\n text", guidelines: []string{" Use echo to repeat ", "Use echo to repeat", " "}}
	f.s.SyncExtensionTools([]loop.Tool{echo})
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	sys := f.script.requests[0].SystemPrompt
	for _, want := range []string{"- read: Read file contents\n- echo: Echo the text\n", "- Use read to examine files instead of cat or sed.\n- Use echo to repeat\n- Be concise"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	f.s.SyncExtensionTools([]loop.Tool{echo, promptedTool{name: "read"}})
	if err := f.s.Prompt(context.Background(), "again", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if sys := f.script.requests[1].SystemPrompt; strings.Contains(sys, "- read:") || strings.Contains(sys, "Use read to") {
		t.Errorf("the replaced read kept its lines:\n%s", sys)
	}
}
