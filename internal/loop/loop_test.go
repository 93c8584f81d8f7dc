package loop

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// env is what a scenario's closures reach: the agent is set once built.
type env struct {
	t        *testing.T
	a        *Agent
	s        *script
	rec      *recorder
	executed atomic.Int32
}

type scenario struct {
	name   string
	cfg    Config
	steps  func(e *env) []step
	tools  func(e *env) []Tool
	before func(e *env)
	prompt func(e *env) error
	want   []string
	check  func(t *testing.T, e *env)
}

func runScenario(t *testing.T, sc scenario) *env {
	e := &env{t: t}
	var steps []step
	if sc.steps != nil {
		steps = sc.steps(e)
	}
	e.s = newScript(t, steps...)
	var tools []Tool
	if sc.tools != nil {
		tools = sc.tools(e)
	}
	e.a, e.rec = newTestAgent(t, e.s, sc.cfg, tools...)
	if sc.before != nil {
		sc.before(e)
	}
	var err error
	if sc.prompt != nil {
		err = sc.prompt(e)
	} else {
		err = e.a.Prompt(context.Background(), user("hi"))
	}
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if sc.want != nil { // nil: the check compares (withWildcards)
		diffLines(t, e.rec.snapshot(), sc.want)
	}
	st := e.a.State()
	if st.IsStreaming || st.StreamingMessage != nil || len(st.PendingToolCalls) != 0 {
		t.Errorf("agent not settled after the run: %+v", st)
	}
	if sc.check != nil {
		sc.check(t, e)
	}
	return e
}

// echo is a tool that counts its executions.
func echo(e *env, name string) *testTool {
	return &testTool{name: name, exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
		e.executed.Add(1)
		return textResult(name + " " + string(c.Args)), nil
	}}
}

func TestEventSequences(t *testing.T) {
	oneCall := []callSpec{call("call_1", "echo", `{"text":"a"}`)}
	tests := []scenario{
		{
			name:  "a plain text answer",
			steps: func(e *env) []step { return []step{reply("hello")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(),
				"turn_end assistant:stop []", "agent_end [user:hi,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				// The prompt the agent was built with leads the transcript as a system message.
				if got := roles(e.a.Messages()); !slices.Equal(got, []string{"system:", "user:hi", "assistant:stop"}) {
					t.Errorf("transcript %v", got)
				}
				req := e.s.request(0)
				if req.SystemPrompt != "be brief" || req.Model != testModel || len(req.Messages) != 1 || len(req.Tools) != 0 {
					t.Errorf("request %+v", req)
				}
			},
		},
		{
			name:  "b three-turn tool run",
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{
					callTools(oneCall),
					callTools([]callSpec{call("call_2", "echo", `{"text":"b"}`)}),
					reply("done"),
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", toolCallEvents(1), "tool_execution_start call_2", "tool_execution_end call_2", resultEvents("call_2", false),
				"turn_end assistant:toolUse [toolResult:call_2]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,assistant:toolUse,toolResult:call_2,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				// Results go back into the context before the next request.
				if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:toolUse", "toolResult:call_1"}) {
					t.Errorf("second request messages %v", got)
				}
				if got := resultText(e.a.Messages()[3]); got != `echo {"text":"a"}` {
					t.Errorf("result text %q", got)
				}
				if len(e.s.request(0).Tools) != 1 || e.s.request(0).Tools[0].Name != "echo" {
					t.Errorf("tools not offered: %+v", e.s.request(0).Tools)
				}
			},
		},
		{
			name:  "b tool calls run even when the stop reason is not toolUse",
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{
					func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
						idx := 0
						b.ToolCall(&idx, "call_1", "echo", `{"text":"a"}`)
						b.SetStopReason("stop", provider.StopReasonStop, "")
						return b.Finish()
					},
					reply("done"),
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				"message_start assistant", "message_update toolcall_start 0", "message_update toolcall_delta 0",
				"message_update toolcall_end 0", "message_end assistant:stop",
				"tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:stop [toolResult:call_1]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,toolResult:call_1,assistant:stop]"),
		},
		{
			name:  "b a length stop with tool calls runs none of them, answers each and asks again",
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo"), echo(e, "other")} },
			steps: func(e *env) []step {
				return []step{
					func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
						b.Start()
						zero, one := 0, 1
						b.ToolCall(&zero, "call_1", "echo", `{"text":"a"}`)
						b.ToolCall(&one, "call_2", "other", `{"text":"b"}`)
						b.SetStopReason("length", provider.StopReasonLength, "")
						return b.Finish()
					},
					reply("done"),
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				"message_start assistant", "message_update toolcall_start 0", "message_update toolcall_delta 0",
				"message_update toolcall_start 1", "message_update toolcall_delta 1",
				"message_update toolcall_end 0", "message_update toolcall_end 1", "message_end assistant:length",
				"tool_execution_start call_1", "tool_execution_end call_1 error", resultEvents("call_1", true),
				"tool_execution_start call_2", "tool_execution_end call_2 error", resultEvents("call_2", true),
				"turn_end assistant:length [toolResult:call_1:error,toolResult:call_2:error]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:length,toolResult:call_1:error,toolResult:call_2:error,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				if n := e.executed.Load(); n != 0 {
					t.Errorf("%d calls of a truncated message ran", n)
				}
				want := `Tool call "other" was not executed: the response hit the output token limit, so its arguments ` +
					`may be truncated. Re-issue the tool call with complete arguments.`
				if got := resultText(e.a.Messages()[4]); got != want { // after system, user, assistant, call_1's
					t.Errorf("result text %q", got)
				}
				if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:length",
					"toolResult:call_1:error", "toolResult:call_2:error"}) {
					t.Errorf("second request messages %v", got)
				}
			},
		},
		{
			name:  "c steering while streaming waits for the tool batch",
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{callTools(oneCall, func() { e.a.Steer(user("s1")) }), reply("ok")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,user:s1,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				if e.executed.Load() != 1 {
					t.Errorf("tool executed %d times; steering must not skip it", e.executed.Load())
				}
				if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:toolUse", "toolResult:call_1", "user:s1"}) {
					t.Errorf("second request messages %v", got)
				}
			},
		},
		{
			name: "c steering while a tool runs",
			tools: func(e *env) []Tool {
				return []Tool{&testTool{name: "echo", exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
					e.a.Steer(user("s1"))
					return textResult("done"), nil
				}}}
			},
			steps: func(e *env) []step { return []step{callTools(oneCall), reply("ok")} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,user:s1,assistant:stop]"),
		},
		{
			name:   "c steering queued while idle goes right after the prompt",
			steps:  func(e *env) []step { return []step{reply("ok")} },
			before: func(e *env) { e.a.Steer(user("s1")) },
			want: seq("agent_start", "turn_start", userEvents("hi"), userEvents("s1"), textEvents(),
				"turn_end assistant:stop []", "agent_end [user:hi,user:s1,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				if got := roles(e.s.request(0).Messages); !slices.Equal(got, []string{"user:hi", "user:s1"}) {
					t.Errorf("request messages %v", got)
				}
			},
		},
		{
			name: "c steering after a text answer starts another turn",
			steps: func(e *env) []step {
				return []step{reply("first", func() { e.a.Steer(user("s1")) }), reply("second")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:s1,assistant:stop]"),
		},
		{
			name: "1.6 two steering messages one at a time: one response each",
			steps: func(e *env) []step {
				return []step{reply("a1", func() { e.a.Steer(user("s1")); e.a.Steer(user("s2")) }), reply("a2"), reply("a3")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:s1,assistant:stop,user:s2,assistant:stop]"),
		},
		{
			name: "1.6 two steering messages in all mode: one response",
			cfg:  Config{SteeringMode: QueueAll},
			steps: func(e *env) []step {
				return []step{reply("a1", func() { e.a.Steer(user("s1")); e.a.Steer(user("s2")) }), reply("a2")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s1"), userEvents("s2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:s1,user:s2,assistant:stop]"),
		},
		{
			name: "1.6 queue mode changed mid-run takes effect at the next poll",
			steps: func(e *env) []step {
				return []step{reply("a1", func() {
					e.a.Steer(user("s1"))
					e.a.Steer(user("s2"))
					e.a.SetSteeringMode(QueueAll)
				}), reply("a2")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s1"), userEvents("s2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:s1,user:s2,assistant:stop]"),
		},
		{
			name:   "d follow-up chain, one at a time",
			steps:  func(e *env) []step { return []step{reply("a1"), reply("a2"), reply("a3")} },
			before: func(e *env) { e.a.FollowUp(user("f1")); e.a.FollowUp(user("f2")) },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("f1"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("f2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:f1,assistant:stop,user:f2,assistant:stop]"),
		},
		{
			name:   "d follow-ups in all mode arrive together",
			cfg:    Config{FollowUpMode: QueueAll},
			steps:  func(e *env) []step { return []step{reply("a1"), reply("a2")} },
			before: func(e *env) { e.a.FollowUp(user("f1")); e.a.FollowUp(user("f2")) },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("f1"), userEvents("f2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:f1,user:f2,assistant:stop]"),
		},
		{
			name:  "d follow-ups wait for tool calls and steering",
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{callTools(oneCall, func() { e.a.FollowUp(user("f1")); e.a.Steer(user("s1")) }), reply("a2"), reply("a3")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("f1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,user:s1,assistant:stop,user:f1,assistant:stop]"),
		},
		{
			name: "f provider error before streaming",
			steps: func(e *env) []step {
				return []step{func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
					return b.Fail(provider.StopReasonError, "500 Internal Server Error")
				}}
			},
			before: func(e *env) { e.a.FollowUp(user("f1")) },
			want: seq("agent_start", "turn_start", userEvents("hi"), "message_start assistant", "message_end assistant:error",
				"turn_end assistant:error []", "agent_end [user:hi,assistant:error]"),
			check: func(t *testing.T, e *env) {
				if got := e.a.State().ErrorMessage; got != "500 Internal Server Error" {
					t.Errorf("error message %q", got)
				}
				if !e.a.HasQueuedMessages() {
					t.Error("follow-up lost after an error")
				}
			},
		},
		{
			name: "f provider error mid-stream keeps the partial content",
			steps: func(e *env) []step {
				return []step{func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
					b.Text("par")
					return b.Fail(provider.StopReasonError, "connection reset")
				}}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), "message_start assistant",
				"message_update text_start 0", "message_update text_delta 0", "message_end assistant:error",
				"turn_end assistant:error []", "agent_end [user:hi,assistant:error]"),
			check: func(t *testing.T, e *env) {
				msgs := e.a.Messages()
				if got := provider.TextOf(msgs[2].(*provider.AssistantMessage).Content, ""); got != "par" {
					t.Errorf("partial text %q", got)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runScenario(t, tc) })
	}
}

func TestRequestOptions(t *testing.T) {
	var models []string
	e := runScenario(t, scenario{
		cfg: Config{
			StreamOptions: provider.StreamOptions{APIKey: "static", SessionID: "s-1", MaxTokens: 99,
				Headers: map[string]string{"X-Call": "call", "X-Both": "call"}},
			RequestAuth: func(ctx context.Context, m *provider.Model) (string, map[string]string, error) {
				models = append(models, m.Provider+"/"+m.ID)
				if len(models) == 1 {
					return "", nil, nil // empty falls back to the static key and headers
				}
				return "fresh", map[string]string{"X-Auth": "auth", "X-Both": "auth"}, nil
			},
		},
		before: func(e *env) { e.a.SetThinkingLevel(provider.ThinkingLow); e.a.FollowUp(user("f1")) },
		steps:  func(e *env) []step { return []step{reply("a"), reply("b")} },
		want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
			"turn_start", userEvents("f1"), textEvents(), "turn_end assistant:stop []",
			"agent_end [user:hi,assistant:stop,user:f1,assistant:stop]"),
	})
	o0, o1 := e.s.request(0).Options, e.s.request(1).Options
	if o0.APIKey != "static" || o1.APIKey != "fresh" || o0.SessionID != "s-1" || o0.MaxTokens != 99 || o0.Reasoning != provider.ThinkingLow {
		t.Errorf("options %+v / %+v", o0, o1)
	}
	// The resolved headers go under the options' own, which win; the shared options map is not changed.
	if !maps.Equal(o0.Headers, map[string]string{"X-Call": "call", "X-Both": "call"}) ||
		!maps.Equal(o1.Headers, map[string]string{"X-Call": "call", "X-Both": "call", "X-Auth": "auth"}) {
		t.Errorf("headers %v / %v", o0.Headers, o1.Headers)
	}
	if !slices.Equal(models, []string{"mock/mock-model", "mock/mock-model"}) {
		t.Errorf("RequestAuth called with %v", models)
	}
}

func TestTransformAndConvert(t *testing.T) {
	custom := &provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("n")}}
	t.Run("default conversion drops other roles", func(t *testing.T) {
		e := runScenario(t, scenario{
			before: func(e *env) { e.a.AppendMessage(custom) },
			steps:  func(e *env) []step { return []step{reply("a")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop]"),
		})
		if got := roles(e.s.request(0).Messages); !slices.Equal(got, []string{"user:hi"}) {
			t.Errorf("request messages %v", got)
		}
	})
	t.Run("transform then convert", func(t *testing.T) {
		var transformed []string
		e := runScenario(t, scenario{
			cfg: Config{
				TransformContext: func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
					transformed = roles(msgs)
					return append(msgs, user("extra")), nil
				},
				ConvertToLLM: func(msgs []provider.Message) []provider.Message { return msgs },
			},
			before: func(e *env) { e.a.AppendMessage(custom) },
			steps:  func(e *env) []step { return []step{reply("a")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop]"),
		})
		if !slices.Equal(transformed, []string{"system:", "custom", "user:hi"}) {
			t.Errorf("transform saw %v", transformed)
		}
		// The system message becomes the request's prompt, not a message.
		if got := roles(e.s.request(0).Messages); !slices.Equal(got, []string{"custom", "user:hi", "user:extra"}) {
			t.Errorf("request messages %v", got)
		}
		if got := roles(e.a.Messages()); !slices.Equal(got, []string{"system:", "custom", "user:hi", "assistant:stop"}) {
			t.Errorf("the transform must not change the transcript: %v", got)
		}
	})
}

func TestPromptWhileRunning(t *testing.T) {
	var e *env
	var promptErr, continueErr error
	e = runScenario(t, scenario{
		steps: func(env *env) []step {
			e = env
			return []step{reply("a", func() {
				promptErr = e.a.Prompt(context.Background(), user("again"))
				continueErr = e.a.Continue(context.Background())
			})}
		},
		want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
			"agent_end [user:hi,assistant:stop]"),
	})
	if promptErr == nil || promptErr.Error() != "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion." {
		t.Errorf("prompt while running: %v", promptErr)
	}
	if !errors.Is(continueErr, ErrAlreadyProcessing) {
		t.Errorf("continue while running: %v", continueErr)
	}
	if e.a.HasQueuedMessages() {
		t.Error("a rejected prompt must not be queued")
	}
}

func TestPromptPreconditions(t *testing.T) {
	a := NewAgent(Config{}, State{})
	if err := a.Prompt(context.Background()); !errors.Is(err, ErrNoPromptMessages) {
		t.Errorf("no messages: %v", err)
	}
	if err := a.Prompt(context.Background(), nil); err == nil {
		t.Error("nil message accepted")
	}
	if a.IsRunning() || len(a.Messages()) != 0 {
		t.Error("a rejected prompt changed the agent")
	}
}
