package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func twoCalls(a, b string) step {
	return callTools([]callSpec{call("call_1", a, `{"text":"1"}`), call("call_2", b, `{"text":"2"}`)})
}

func TestToolBatches(t *testing.T) {
	t.Run("parallel: ends in completion order, results in source order", func(t *testing.T) {
		release := make(chan struct{})
		e := runScenario(t, scenario{
			tools: func(e *env) []Tool {
				return []Tool{
					&testTool{name: "slow", exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
						<-release
						return textResult("slow done"), nil
					}},
					&testTool{name: "fast"},
				}
			},
			before: func(e *env) {
				e.rec.on = func(ev Event) {
					if ev.Type == EventToolExecutionEnd && ev.ToolCallID == "call_2" {
						close(release)
					}
				}
			},
			steps: func(e *env) []step { return []step{twoCalls("slow", "fast"), reply("ok")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(2),
				"tool_execution_start call_1", "tool_execution_start call_2",
				"tool_execution_end call_2", "tool_execution_end call_1",
				resultEvents("call_1", false), resultEvents("call_2", false),
				"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2,assistant:stop]"),
		})
		if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:toolUse", "toolResult:call_1", "toolResult:call_2"}) {
			t.Errorf("second request %v", got)
		}
	})

	t.Run("parallel: an immediate error ends at preparation, its result stays in source order", func(t *testing.T) {
		release := make(chan struct{})
		runScenario(t, scenario{
			tools: func(e *env) []Tool {
				return []Tool{
					&testTool{name: "slow", exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
						<-release
						return textResult("slow done"), nil
					}},
					&testTool{name: "fast"},
				}
			},
			before: func(e *env) {
				e.rec.on = func(ev Event) {
					if ev.Type == EventToolExecutionEnd && ev.ToolCallID == "call_3" {
						close(release)
					}
				}
			},
			steps: func(e *env) []step {
				return []step{callTools([]callSpec{call("call_1", "slow", `{}`), call("call_2", "nope", `{}`), call("call_3", "fast", `{}`)}), reply("ok")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(3),
				"tool_execution_start call_1", "tool_execution_start call_2", "tool_execution_end call_2 error",
				"tool_execution_start call_3", "tool_execution_end call_3", "tool_execution_end call_1",
				resultEvents("call_1", false), resultEvents("call_2", true), resultEvents("call_3", false),
				"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2:error,toolResult:call_3]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2:error,toolResult:call_3,assistant:stop]"),
		})
	})

	sequentialWant := seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(2),
		"tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
		"tool_execution_start call_2", "tool_execution_end call_2", resultEvents("call_2", false),
		"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2]",
		"turn_start", textEvents(), "turn_end assistant:stop []",
		"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2,assistant:stop]")

	t.Run("sequential by configuration", func(t *testing.T) {
		var running sync.Mutex
		exec := func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
			if !running.TryLock() {
				return ToolResult{}, errors.New("ran concurrently")
			}
			defer running.Unlock()
			return textResult("done"), nil
		}
		runScenario(t, scenario{
			cfg:   Config{ToolExecution: ExecutionSequential},
			tools: func(e *env) []Tool { return []Tool{&testTool{name: "a", exec: exec}, &testTool{name: "b", exec: exec}} },
			steps: func(e *env) []step { return []step{twoCalls("a", "b"), reply("ok")} },
			want:  sequentialWant,
		})
	})

	t.Run("sequential because one tool demands it", func(t *testing.T) {
		runScenario(t, scenario{
			tools: func(e *env) []Tool { return []Tool{&testTool{name: "a"}, sequentialTool{&testTool{name: "b"}}} },
			steps: func(e *env) []step { return []step{twoCalls("a", "b"), reply("ok")} },
			want:  sequentialWant,
		})
	})

	t.Run("sequential after SetToolExecution", func(t *testing.T) {
		runScenario(t, scenario{
			tools:  func(e *env) []Tool { return []Tool{&testTool{name: "a"}, &testTool{name: "b"}} },
			before: func(e *env) { e.a.SetToolExecution(ExecutionSequential) },
			steps:  func(e *env) []step { return []step{twoCalls("a", "b"), reply("ok")} },
			want:   sequentialWant,
		})
	})
}

func TestToolUpdates(t *testing.T) {
	var late func(ToolResult)
	gate := make(chan struct{})
	streaming := func(name string, wait bool) *testTool {
		return &testTool{name: name, exec: func(ctx context.Context, c ToolCall, onUpdate func(ToolResult)) (ToolResult, error) {
			onUpdate(textResult(name + " 1"))
			if wait {
				<-gate
			}
			// Updates from another goroutine of the tool are serialised too.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); onUpdate(textResult(name + " 1 2")) }()
			wg.Wait()
			if name == "a" {
				late = onUpdate
			}
			return textResult(name + " done"), nil
		}}
	}
	e := runScenario(t, scenario{
		tools: func(e *env) []Tool { return []Tool{streaming("a", true), streaming("b", false)} },
		before: func(e *env) {
			e.rec.on = func(ev Event) {
				if ev.Type == EventToolExecutionEnd && ev.ToolCallID == "call_2" {
					close(gate)
				}
			}
		},
		steps: func(e *env) []step { return []step{twoCalls("a", "b"), reply("ok")} },
		want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(2),
			"tool_execution_start call_1", "tool_execution_start call_2",
			// call_1's first update and call_2's events interleave; the test below checks each call's order.
			"*", "*", "*", "*",
			"tool_execution_update call_1", "tool_execution_end call_1",
			resultEvents("call_1", false), resultEvents("call_2", false),
			"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2]",
			"turn_start", textEvents(), "turn_end assistant:stop []",
			"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2,assistant:stop]"),
		prompt: func(e *env) error {
			return e.a.Prompt(context.Background(), user("hi"))
		},
	}.withWildcards())
	before := len(e.rec.snapshot())
	late(textResult("after the end")) // must be dropped, not block or emit
	if len(e.rec.snapshot()) != before {
		t.Error("an update after Execute returned was emitted")
	}
	var perCall = map[string][]string{}
	for _, ev := range e.rec.events {
		if ev.Type == EventToolExecutionUpdate || ev.Type == EventToolExecutionEnd {
			text := provider.TextOf(ev.Result.Content, "")
			perCall[ev.ToolCallID] = append(perCall[ev.ToolCallID], string(ev.Type)+" "+text)
			if ev.Type == EventToolExecutionUpdate && string(ev.Args) != fmt.Sprintf(`{"text":"%s"}`, ev.ToolCallID[5:]) {
				t.Errorf("update args %s", ev.Args)
			}
		}
	}
	for id, name := range map[string]string{"call_1": "a", "call_2": "b"} {
		want := []string{"tool_execution_update " + name + " 1", "tool_execution_update " + name + " 1 2", "tool_execution_end " + name + " done"}
		if !slices.Equal(perCall[id], want) {
			t.Errorf("%s: %v, want %v", id, perCall[id], want)
		}
	}
}

// withWildcards makes "*" entries of want match any one event.
func (sc scenario) withWildcards() scenario {
	want := sc.want
	sc.want = nil
	check := sc.check
	sc.check = func(t *testing.T, e *env) {
		got := e.rec.snapshot()
		if len(got) != len(want) {
			diffLines(t, got, want)
		}
		for i := range want {
			if want[i] == "*" {
				want[i] = got[i]
			}
		}
		diffLines(t, got, want)
		if check != nil {
			check(t, e)
		}
	}
	return sc
}

func TestToolFailures(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`
	tests := []struct {
		name     string
		cfg      Config
		tool     *testTool
		call     callSpec
		wantText string
		isError  bool
		ran      bool
	}{
		{
			name: "unknown tool", call: call("call_1", "nope", `{}`),
			wantText: "Tool nope not found", isError: true,
		},
		{
			name: "validation failure", tool: &testTool{name: "read", schema: schema},
			call: call("call_1", "read", `{"limit":"0","extra":true}`), isError: true,
			wantText: "Validation failed for tool \"read\":\n" +
				"  - path: must have required properties path\n" +
				"  - root: must not have additional properties\n" +
				"  - limit: must be >= 1\n\n" +
				"Received arguments:\n{\n  \"limit\": \"0\",\n  \"extra\": true\n}",
		},
		{
			name: "coerced arguments reach the tool", tool: &testTool{name: "read", schema: schema},
			call: call("call_1", "read", `{"path":5,"limit":"7"}`), ran: true, wantText: `{"path":"5","limit":7}`,
		},
		{
			name: "tool error", call: call("call_1", "t", `{}`), isError: true, ran: true, wantText: "file not found",
			tool: &testTool{name: "t", exec: func(context.Context, ToolCall, func(ToolResult)) (ToolResult, error) {
				return textResult("ignored"), errors.New("file not found")
			}},
		},
		{
			name: "tool panic", call: call("call_1", "t", `{}`), isError: true, ran: true, wantText: "Tool t panicked: kaboom",
			tool: &testTool{name: "t", exec: func(context.Context, ToolCall, func(ToolResult)) (ToolResult, error) { panic("kaboom") }},
		},
		{
			name: "blocked with a reason", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"}, isError: true,
			cfg: Config{BeforeToolCall: func(context.Context, ToolCallContext) (BeforeToolCallResult, error) {
				return BeforeToolCallResult{Block: true, Reason: "not in plan mode"}, nil
			}},
			wantText: "not in plan mode",
		},
		{
			name: "blocked without a reason", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"}, isError: true,
			cfg: Config{BeforeToolCall: func(context.Context, ToolCallContext) (BeforeToolCallResult, error) {
				return BeforeToolCallResult{Block: true}, nil
			}},
			wantText: "Tool execution was blocked",
		},
		{
			name: "BeforeToolCall fails", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"}, isError: true,
			cfg: Config{BeforeToolCall: func(context.Context, ToolCallContext) (BeforeToolCallResult, error) {
				return BeforeToolCallResult{}, errors.New("hook failed")
			}},
			wantText: "hook failed",
		},
		{
			name: "AfterToolCall replaces content and isError", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"},
			isError: true, ran: true, wantText: "replaced",
			cfg: Config{AfterToolCall: func(ctx context.Context, c AfterToolCallContext) (AfterToolCallResult, error) {
				return AfterToolCallResult{Content: []provider.Content{provider.TextContent("replaced")}, IsError: provider.Ptr(true)}, nil
			}},
		},
		{
			name: "AfterToolCall fails", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"},
			isError: true, ran: true, wantText: "after failed",
			cfg: Config{AfterToolCall: func(ctx context.Context, c AfterToolCallContext) (AfterToolCallResult, error) {
				return AfterToolCallResult{}, errors.New("after failed")
			}},
		},
		{
			name: "AfterToolCall panics", call: call("call_1", "t", `{}`), tool: &testTool{name: "t"},
			isError: true, ran: true, wantText: "panic: after broke",
			cfg: Config{AfterToolCall: func(ctx context.Context, c AfterToolCallContext) (AfterToolCallResult, error) {
				panic("after broke")
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			var tools []Tool
			if tc.tool != nil {
				inner := tc.tool.exec
				tc.tool.exec = func(ctx context.Context, c ToolCall, u func(ToolResult)) (ToolResult, error) {
					ran = true
					if inner == nil {
						return textResult(string(c.Args)), nil
					}
					return inner(ctx, c, u)
				}
				tools = append(tools, tc.tool)
			}
			s := newScript(t, callTools([]callSpec{tc.call}), reply("ok"))
			a, rec := newTestAgent(t, s, tc.cfg, tools...)
			if err := a.Prompt(context.Background(), user("hi")); err != nil {
				t.Fatal(err)
			}
			diffLines(t, rec.snapshot(), seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(1),
				"tool_execution_start call_1", "tool_execution_end call_1"+map[bool]string{true: " error"}[tc.isError],
				resultEvents("call_1", tc.isError), "turn_end assistant:toolUse [toolResult:call_1"+map[bool]string{true: ":error"}[tc.isError]+"]",
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1"+map[bool]string{true: ":error"}[tc.isError]+",assistant:stop]"))
			if ran != tc.ran {
				t.Errorf("tool ran: %v, want %v", ran, tc.ran)
			}
			res := a.Messages()[3].(*provider.ToolResultMessage) // after system, user, assistant
			if got := provider.TextOf(res.Content, ""); got != tc.wantText {
				t.Errorf("result text:\n%s\nwant:\n%s", got, tc.wantText)
			}
			if tc.isError {
				if d, ok := res.Details.(map[string]any); tc.name != "AfterToolCall replaces content and isError" && (!ok || len(d) != 0) {
					t.Errorf("error details %#v, want {}", res.Details)
				}
			}
			// The raw arguments travel in the events.
			for _, ev := range rec.events {
				if ev.Type == EventToolExecutionStart && string(ev.Args) != tc.call.args {
					t.Errorf("start args %s", ev.Args)
				}
			}
		})
	}
}

func TestToolHooksSeeTheCall(t *testing.T) {
	var before ToolCallContext
	var after AfterToolCallContext
	cfg := Config{
		BeforeToolCall: func(ctx context.Context, c ToolCallContext) (BeforeToolCallResult, error) {
			before = c
			return BeforeToolCallResult{}, nil
		},
		AfterToolCall: func(ctx context.Context, c AfterToolCallContext) (AfterToolCallResult, error) {
			after = c
			return AfterToolCallResult{Details: map[string]any{"lines": 3}}, nil
		},
	}
	tool := &testTool{name: "read", schema: `{"type":"object","properties":{"n":{"type":"number"}}}`,
		exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
			return ToolResult{Content: []provider.Content{provider.TextContent("x")}, Details: map[string]any{"lines": 1}}, nil
		}}
	s := newScript(t, callTools([]callSpec{call("call_1", "read", `{"n":"2"}`)}), reply("ok"))
	a, _ := newTestAgent(t, s, cfg, tool)
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	if before.ToolCall.ID != "call_1" || string(before.ToolCall.Arguments) != `{"n":"2"}` || string(before.Args) != `{"n":2}` ||
		before.AssistantMessage == nil || len(before.Messages) != 3 {
		t.Errorf("before context %+v", before)
	}
	if after.IsError || provider.TextOf(after.Result.Content, "") != "x" || string(after.Args) != `{"n":2}` {
		t.Errorf("after context %+v", after)
	}
	res := a.Messages()[3].(*provider.ToolResultMessage)
	data, _ := json.Marshal(res.Details)
	if string(data) != `{"lines":3}` || provider.TextOf(res.Content, "") != "x" {
		t.Errorf("details not replaced: %s", data)
	}
}

type legacyTool struct{ *testTool }

// PrepareArguments accepts the legacy {"file": …} shape.
func (legacyTool) PrepareArguments(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		if f, ok := m["file"]; ok {
			data, _ := json.Marshal(map[string]any{"path": f})
			return data
		}
	}
	return raw
}

func TestPrepareArguments(t *testing.T) {
	var got string
	tool := legacyTool{&testTool{name: "read", schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
			got = string(c.Args)
			return textResult("ok"), nil
		}}}
	s := newScript(t, callTools([]callSpec{call("call_1", "read", `{"file":"a.txt"}`)}), reply("ok"))
	a, rec := newTestAgent(t, s, Config{}, tool)
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	if got != `{"path":"a.txt"}` {
		t.Errorf("tool got %s", got)
	}
	for _, ev := range rec.events {
		if ev.Type == EventToolExecutionStart && string(ev.Args) != `{"file":"a.txt"}` {
			t.Errorf("events must carry the raw arguments: %s", ev.Args)
		}
	}
}

func TestTerminate(t *testing.T) {
	terminating := func(name string) *testTool {
		return &testTool{name: name, exec: func(context.Context, ToolCall, func(ToolResult)) (ToolResult, error) {
			return ToolResult{Content: []provider.Content{provider.TextContent("bye")}, Terminate: true}, nil
		}}
	}
	batchEvents := seq(toolCallEvents(2), "tool_execution_start call_1", "tool_execution_start call_2", "*", "*",
		resultEvents("call_1", false), resultEvents("call_2", false),
		"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2]")
	t.Run("every result terminates: no further request", func(t *testing.T) {
		runScenario(t, scenario{
			tools: func(e *env) []Tool { return []Tool{terminating("a"), terminating("b")} },
			steps: func(e *env) []step { return []step{twoCalls("a", "b")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), batchEvents,
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2]"),
		}.withWildcards())
	})
	t.Run("a mixed batch continues", func(t *testing.T) {
		runScenario(t, scenario{
			tools: func(e *env) []Tool { return []Tool{terminating("a"), &testTool{name: "b"}} },
			steps: func(e *env) []step { return []step{twoCalls("a", "b"), reply("ok")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), batchEvents,
				"turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2,assistant:stop]"),
		}.withWildcards())
	})
	t.Run("terminate set by AfterToolCall, queued steering still runs", func(t *testing.T) {
		runScenario(t, scenario{
			cfg: Config{AfterToolCall: func(context.Context, AfterToolCallContext) (AfterToolCallResult, error) {
				return AfterToolCallResult{Terminate: provider.Ptr(true)}, nil
			}},
			tools: func(e *env) []Tool { return []Tool{&testTool{name: "a"}, &testTool{name: "b"}} },
			steps: func(e *env) []step {
				return []step{callTools([]callSpec{call("call_1", "a", `{}`), call("call_2", "b", `{}`)}, func() { e.a.Steer(user("s1")) }), reply("ok")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), batchEvents,
				"turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2,user:s1,assistant:stop]"),
		}.withWildcards())
	})
}
