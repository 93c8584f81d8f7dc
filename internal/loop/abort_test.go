package loop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestAbort(t *testing.T) {
	t.Run("while streaming: partial kept, tool calls not run, queues kept", func(t *testing.T) {
		e := runScenario(t, scenario{
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
					b.Text("par")
					idx := 1
					b.ToolCall(&idx, "call_1", "echo", `{}`)
					e.a.Steer(user("s1"))
					e.a.Abort()
					<-ctx.Done()
					return b.Fail(provider.StopReasonAborted, "Request was aborted")
				}}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), "message_start assistant",
				"message_update text_start 0", "message_update text_delta 0",
				"message_update toolcall_start 1", "message_update toolcall_delta 1",
				"message_update text_end 0", "message_update toolcall_end 1",
				"message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,assistant:aborted]"),
			check: func(t *testing.T, e *env) {
				if e.executed.Load() != 0 {
					t.Error("a tool call of an aborted message ran")
				}
				st := e.a.State()
				if st.ErrorMessage != "Request was aborted" {
					t.Errorf("error message %q", st.ErrorMessage)
				}
				last := st.Messages[len(st.Messages)-1].(*provider.AssistantMessage)
				if provider.TextOf(last.Content, "") != "par" {
					t.Errorf("partial content lost: %+v", last.Content)
				}
				if steering, _ := e.a.QueuedMessages(); len(steering) != 1 {
					t.Errorf("abort must leave the queues: %v", steering)
				}
			},
		})
		_ = e
	})

	t.Run("while a tool runs: error result, then an aborted request", func(t *testing.T) {
		started := make(chan struct{})
		runScenario(t, scenario{
			tools: func(e *env) []Tool {
				return []Tool{&testTool{name: "slow", exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
					close(started)
					<-ctx.Done()
					return ToolResult{}, errors.New("Operation aborted")
				}}}
			},
			steps: func(e *env) []step {
				return []step{callTools([]callSpec{call("call_1", "slow", `{}`)}), reply("never streamed")}
			},
			prompt: func(e *env) error {
				done := make(chan struct{})
				go func() {
					defer close(done)
					<-started
					e.a.Abort()
				}()
				err := e.a.Prompt(context.Background(), user("hi"))
				<-done
				return err
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(1),
				"tool_execution_start call_1", "tool_execution_end call_1 error", resultEvents("call_1", true),
				"turn_end assistant:toolUse [toolResult:call_1:error]",
				"turn_start", "message_start assistant", "message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1:error,assistant:aborted]"),
			check: func(t *testing.T, e *env) {
				// [0] is the leading system message declaring the prompt and tools
				if got := resultText(e.a.Messages()[3]); got != "Operation aborted" {
					t.Errorf("result text %q", got)
				}
			},
		})
	})

	t.Run("sequential batch: calls after the abort get an immediate error result", func(t *testing.T) {
		runScenario(t, scenario{
			cfg: Config{ToolExecution: ExecutionSequential},
			tools: func(e *env) []Tool {
				return []Tool{&testTool{name: "stopper", exec: func(ctx context.Context, c ToolCall, _ func(ToolResult)) (ToolResult, error) {
					e.a.Abort()
					return textResult("finished anyway"), nil
				}}, echo(e, "echo")}
			},
			steps: func(e *env) []step {
				return []step{callTools([]callSpec{call("call_1", "stopper", `{}`), call("call_2", "echo", `{}`),
					call("call_3", "echo", `{}`)}), reply("never streamed")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(3),
				"tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"tool_execution_start call_2", "tool_execution_end call_2 error", resultEvents("call_2", true),
				"tool_execution_start call_3", "tool_execution_end call_3 error", resultEvents("call_3", true),
				"turn_end assistant:toolUse [toolResult:call_1,toolResult:call_2:error,toolResult:call_3:error]",
				"turn_start", "message_start assistant", "message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,toolResult:call_2:error,toolResult:call_3:error,assistant:aborted]"),
			check: func(t *testing.T, e *env) {
				if n := e.executed.Load(); n != 0 {
					t.Errorf("%d calls ran after the abort", n)
				}
				msgs := e.a.Messages() // the leading system message, user, assistant, results
				if got := resultText(msgs[4]); got != "Operation aborted" {
					t.Errorf("result text %q", got)
				}
				if got := resultText(msgs[3]); got != "finished anyway" {
					t.Errorf("the call that was running keeps its result: %q", got)
				}
			},
		})
	})

	t.Run("parallel batch: aborted while preparing, no call runs and no hook is asked again", func(t *testing.T) {
		var ep *env
		var before []string
		runScenario(t, scenario{
			cfg: Config{
				BeforeToolCall: func(ctx context.Context, c ToolCallContext) (BeforeToolCallResult, error) {
					before = append(before, c.ToolCall.ID)
					ep.a.Abort()
					return BeforeToolCallResult{}, nil
				},
				AfterToolCall: func(context.Context, AfterToolCallContext) (AfterToolCallResult, error) {
					t.Error("AfterToolCall ran for a call that never started")
					return AfterToolCallResult{}, nil
				},
			},
			tools: func(e *env) []Tool { ep = e; return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step {
				return []step{callTools([]callSpec{call("call_1", "echo", `{}`), call("call_2", "echo", `{}`)}), reply("never")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(2),
				"tool_execution_start call_1", "tool_execution_end call_1 error",
				"tool_execution_start call_2", "tool_execution_end call_2 error",
				resultEvents("call_1", true), resultEvents("call_2", true),
				"turn_end assistant:toolUse [toolResult:call_1:error,toolResult:call_2:error]",
				"turn_start", "message_start assistant", "message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1:error,toolResult:call_2:error,assistant:aborted]"),
			check: func(t *testing.T, e *env) {
				if n := e.executed.Load(); n != 0 {
					t.Errorf("%d calls ran after the abort", n)
				}
				if !slices.Equal(before, []string{"call_1"}) {
					t.Errorf("BeforeToolCall asked for %v", before)
				}
				for _, i := range []int{3, 4} { // after system, user, assistant
					if got := resultText(e.a.Messages()[i]); got != "Operation aborted" {
						t.Errorf("result %d text %q", i, got)
					}
				}
			},
		})
	})

	t.Run("during the initial poll: steering delivered, request aborted", func(t *testing.T) {
		runScenario(t, scenario{
			steps: func(e *env) []step { return []step{reply("never streamed")} },
			before: func(e *env) {
				e.a.Steer(user("s1"))
				e.rec.on = func(ev Event) {
					if ev.Type == EventMessageEnd && msgLabel(ev.Message) == "user:hi" {
						e.a.Abort()
					}
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), userEvents("s1"),
				"message_start assistant", "message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,user:s1,assistant:aborted]"),
		})
	})

	t.Run("prompt with a cancelled context", func(t *testing.T) {
		runScenario(t, scenario{
			steps: func(e *env) []step { return []step{reply("never streamed")} },
			prompt: func(e *env) error {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return e.a.Prompt(ctx, user("hi"))
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				"message_start assistant", "message_end assistant:aborted", "turn_end assistant:aborted []",
				"agent_end [user:hi,assistant:aborted]"),
		})
	})

	t.Run("when idle it is a no-op and the next run starts clean", func(t *testing.T) {
		s := newScript(t, func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
			return b.Fail(provider.StopReasonError, "boom")
		}, reply("fine"))
		a, _ := newTestAgent(t, s, Config{})
		a.FollowUp(user("later"))
		a.Abort()
		if err := a.Prompt(context.Background(), user("one")); err != nil {
			t.Fatal(err)
		}
		if a.State().ErrorMessage != "boom" {
			t.Fatalf("error message %q", a.State().ErrorMessage)
		}
		a.Abort()
		a.ClearAllQueues()
		if err := a.Prompt(context.Background(), user("two")); err != nil {
			t.Fatal(err)
		}
		if st := a.State(); st.ErrorMessage != "" || len(st.Messages) != 5 { // system, then two runs
			t.Fatalf("second run: %+v", st)
		}
	})
}

// failureEvents is how a run that failed outside the stream contract ends (pi 1.6): its synthetic
// message with message_start and message_end, turn_end, and agent_end with that message alone.
func failureEvents(reason string) []string {
	return []string{"message_start assistant", "message_end assistant:" + reason,
		"turn_end assistant:" + reason + " []", "agent_end [assistant:" + reason + "]"}
}

func TestFailurePath(t *testing.T) {
	synthetic := func(t *testing.T, e *env, reason provider.StopReason, text string) {
		t.Helper()
		st := e.a.State()
		last, ok := st.Messages[len(st.Messages)-1].(*provider.AssistantMessage)
		if !ok {
			t.Fatalf("last message %v", roles(st.Messages))
		}
		if last.StopReason != reason || last.ErrorMessage != text || st.ErrorMessage != text ||
			len(last.Content) != 1 || last.Content[0].Type != provider.ContentText || last.Content[0].Text != "" ||
			last.Provider != "mock" || last.Model != "mock-model" || last.API != provider.APIOpenAICompletions ||
			last.Usage != (provider.Usage{}) || last.Timestamp == 0 {
			t.Fatalf("synthetic message %+v (state error %q)", last, st.ErrorMessage)
		}
	}
	tests := []struct {
		name   string
		cfg    func(e **env) Config
		steps  func(e *env) []step
		reason provider.StopReason
		text   string
		want   []string
	}{
		{
			name: "RequestAuth fails",
			cfg: func(**env) Config {
				return Config{RequestAuth: func(context.Context, *provider.Model) (string, map[string]string, error) {
					return "", nil, errors.New("No API key for provider: mock")
				}}
			},
			reason: provider.StopReasonError, text: "No API key for provider: mock",
			want: seq("agent_start", "turn_start", userEvents("hi"), failureEvents("error")),
		},
		{
			name: "TransformContext fails on the second request",
			cfg: func(**env) Config {
				n := 0
				return Config{TransformContext: func(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
					if n++; n == 2 {
						return nil, errors.New("transform failed")
					}
					return msgs, nil
				}}
			},
			steps:  func(e *env) []step { return []step{reply("a", func() { e.a.FollowUp(user("f1")) })} },
			reason: provider.StopReasonError, text: "transform failed",
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("f1"), failureEvents("error")),
		},
		{
			name: "aborted while resolving the key",
			cfg: func(e **env) Config {
				return Config{RequestAuth: func(ctx context.Context, _ *provider.Model) (string, map[string]string, error) {
					(*e).a.Abort()
					return "", nil, ctx.Err()
				}}
			},
			reason: provider.StopReasonAborted, text: "context canceled",
			want: seq("agent_start", "turn_start", userEvents("hi"), failureEvents("aborted")),
		},
		{
			name: "the stream function panics",
			cfg:  func(**env) Config { return Config{} },
			steps: func(e *env) []step {
				return []step{func(context.Context, *provider.Request, *provider.StreamBuilder) *provider.AssistantMessage {
					panic("boom")
				}}
			},
			reason: provider.StopReasonError, text: "panic: boom",
			want: seq("agent_start", "turn_start", userEvents("hi"), failureEvents("error")),
		},
		{
			name: "the stream function returns no message",
			cfg:  func(**env) Config { return Config{} },
			steps: func(e *env) []step {
				return []step{func(context.Context, *provider.Request, *provider.StreamBuilder) *provider.AssistantMessage {
					return nil
				}}
			},
			reason: provider.StopReasonError, text: "stream function returned no message",
			want: seq("agent_start", "turn_start", userEvents("hi"), failureEvents("error")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ep *env
			e := runScenario(t, scenario{
				cfg: tc.cfg(&ep),
				steps: func(e *env) []step {
					ep = e
					if tc.steps == nil {
						return []step{reply("never")}
					}
					return tc.steps(e)
				},
				want: tc.want,
			})
			synthetic(t, e, tc.reason, tc.text)
		})
	}

	t.Run("a panicking subscriber ends the run through the failure path", func(t *testing.T) {
		var panicked bool
		e := runScenario(t, scenario{
			steps: func(e *env) []step { return []step{reply("a")} },
			before: func(e *env) {
				e.rec.on = func(ev Event) {
					if ev.Type == EventTurnEnd && !panicked {
						panicked = true
						panic("listener broke")
					}
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				failureEvents("error")),
		})
		synthetic(t, e, provider.StopReasonError, "panic: listener broke")
	})

	t.Run("a subscriber that panics again while the failure is reported only cuts the report short", func(t *testing.T) {
		e := runScenario(t, scenario{
			steps: func(e *env) []step { return []step{reply("a")} },
			before: func(e *env) {
				e.rec.on = func(ev Event) {
					if ev.Type == EventTurnEnd {
						panic("listener broke")
					}
				}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"message_start assistant", "message_end assistant:error", "turn_end assistant:error []"),
		})
		synthetic(t, e, provider.StopReasonError, "panic: listener broke")
	})

	t.Run("a subscriber panicking while tools run stops and waits for them", func(t *testing.T) {
		stopped := make(chan struct{})
		e := runScenario(t, scenario{
			tools: func(e *env) []Tool {
				return []Tool{&testTool{name: "slow", exec: func(ctx context.Context, c ToolCall, up func(ToolResult)) (ToolResult, error) {
					up(textResult("partial"))
					<-ctx.Done()
					close(stopped)
					return ToolResult{}, ctx.Err()
				}}}
			},
			before: func(e *env) {
				e.rec.on = func(ev Event) {
					if ev.Type == EventToolExecutionUpdate {
						panic("listener broke")
					}
				}
			},
			steps: func(e *env) []step { return []step{callTools([]callSpec{call("call_1", "slow", `{}`)})} },
			want: seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(1),
				"tool_execution_start call_1", "tool_execution_update call_1", failureEvents("error")),
		})
		<-stopped
		synthetic(t, e, provider.StopReasonError, "panic: listener broke")
	})
}

func TestContinue(t *testing.T) {
	assistant := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent("old")}, StopReason: provider.StopReasonStop}
	toolResult := &provider.ToolResultMessage{ToolCallID: "call_0", ToolName: "echo", Content: []provider.Content{provider.TextContent("r")}}
	tests := []struct {
		name       string
		transcript []provider.Message
		steering   []string
		followUps  []string
		mode       QueueMode
		steps      int
		wantErr    error
		want       []string
		tail       []string
	}{
		{name: "no messages", wantErr: ErrNoMessagesToContinue},
		{name: "assistant tail without queued messages", transcript: []provider.Message{user("q"), assistant}, wantErr: ErrContinueFromAssistant},
		{
			name: "assistant tail with two steering messages keeps one-at-a-time", transcript: []provider.Message{user("q"), assistant},
			steering: []string{"s1", "s2"}, steps: 2,
			want: seq("agent_start", "turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"turn_start", userEvents("s2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:s1,assistant:stop,user:s2,assistant:stop]"),
			tail: []string{"user:q", "assistant:stop", "user:s1", "assistant:stop", "user:s2", "assistant:stop"},
		},
		{
			name: "assistant tail with steering in all mode", transcript: []provider.Message{user("q"), assistant},
			steering: []string{"s1", "s2"}, mode: QueueAll, steps: 1,
			want: seq("agent_start", "turn_start", userEvents("s1"), userEvents("s2"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:s1,user:s2,assistant:stop]"),
		},
		{
			name: "assistant tail with a follow-up", transcript: []provider.Message{user("q"), assistant},
			followUps: []string{"f1"}, steps: 1,
			want: seq("agent_start", "turn_start", userEvents("f1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:f1,assistant:stop]"),
		},
		{
			name: "user tail continues without new messages", transcript: []provider.Message{user("q")}, steps: 1,
			want: seq("agent_start", "turn_start", textEvents(), "turn_end assistant:stop []", "agent_end [assistant:stop]"),
			tail: []string{"user:q", "assistant:stop"},
		},
		{
			name: "tool result tail continues", transcript: []provider.Message{user("q"), assistant, toolResult}, steps: 1,
			want: seq("agent_start", "turn_start", textEvents(), "turn_end assistant:stop []", "agent_end [assistant:stop]"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := make([]step, tc.steps)
			for i := range steps {
				steps[i] = reply("answer")
			}
			s := newScript(t, steps...)
			a, rec := newTestAgent(t, s, Config{SteeringMode: tc.mode})
			a.ReplaceMessages(tc.transcript)
			for _, m := range tc.steering {
				a.Steer(user(m))
			}
			for _, m := range tc.followUps {
				a.FollowUp(user(m))
			}
			err := a.Continue(context.Background())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				if len(rec.snapshot()) != 0 || s.calls() != 0 {
					t.Fatal("a rejected continue ran")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			diffLines(t, rec.snapshot(), tc.want)
			if s.calls() != tc.steps {
				t.Errorf("%d LLM calls, want %d", s.calls(), tc.steps)
			}
			if tc.tail != nil && !slices.Equal(roles(a.Messages()), tc.tail) {
				t.Errorf("transcript %v, want %v", roles(a.Messages()), tc.tail)
			}
		})
	}
	if ErrNoMessagesToContinue.Error() != "No messages to continue from" ||
		ErrContinueFromAssistant.Error() != "Cannot continue from message role: assistant" ||
		ErrAlreadyProcessing.Error() != "Agent is already processing. Wait for completion before continuing." {
		t.Error("continue error texts differ from pi's")
	}
}

func TestWaitForIdle(t *testing.T) {
	release := make(chan struct{})
	inStream := make(chan struct{})
	s := newScript(t, reply("a", func() { close(inStream); <-release }))
	a, _ := newTestAgent(t, s, Config{})
	if err := a.WaitForIdle(context.Background()); err != nil {
		t.Fatalf("idle agent: %v", err)
	}
	done := make(chan error)
	go func() { done <- a.Prompt(context.Background(), user("hi")) }()
	<-inStream
	if !a.IsRunning() || !a.State().IsStreaming {
		t.Fatal("not running while streaming")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.WaitForIdle(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForIdle with a cancelled context: %v", err)
	}
	waited := make(chan error)
	go func() { waited <- a.WaitForIdle(context.Background()) }()
	close(release)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if a.IsRunning() {
		t.Fatal("running after WaitForIdle")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
