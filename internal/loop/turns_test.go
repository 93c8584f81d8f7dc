package loop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// The turn hooks of pi-agent-core 1.6: FinishTurn before turn_end, PrepareNextTurn before every turn
// but the first, PrepareRequest before every request, and the second steering poll.

// hookMark records a hook call among the recorded events, in the order they happen.
func hookMark(e *env, mark string) {
	e.rec.mu.Lock()
	e.rec.lines = append(e.rec.lines, mark)
	e.rec.mu.Unlock()
}

func TestFinishTurn(t *testing.T) {
	oneCall := []callSpec{call("call_1", "echo", `{}`)}
	decide := func(decisions ...TurnDecision) func(e **env) Config {
		return func(e **env) Config {
			n := 0
			return Config{FinishTurn: func(ctx context.Context, turn TurnContext) (TurnDecision, error) {
				hookMark(*e, "finishTurn "+msgLabel(turn.Message))
				d := TurnDefault
				if n < len(decisions) {
					d = decisions[n]
				}
				n++
				return d, nil
			}}
		}
	}
	tests := []struct {
		name   string
		cfg    func(e **env) Config
		steps  func(e *env) []step
		before func(e *env)
		want   []string
		check  func(t *testing.T, e *env)
	}{
		{
			name: "runs before turn_end; the default goes on with the tool results",
			cfg:  decide(),
			steps: func(e *env) []step {
				return []step{callTools(oneCall), reply("done")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"finishTurn assistant:toolUse", "turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", textEvents(), "finishTurn assistant:stop", "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,assistant:stop]"),
		},
		{
			name:   "end stops after turn_end although tool results, steering and follow-ups wait",
			cfg:    decide(TurnEnd),
			before: func(e *env) { e.a.FollowUp(user("f1")) },
			steps: func(e *env) []step {
				return []step{callTools(oneCall, func() { e.a.Steer(user("s1")) })}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"finishTurn assistant:toolUse", "turn_end assistant:toolUse [toolResult:call_1]",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1]"),
			check: func(t *testing.T, e *env) {
				steering, followUp := e.a.QueuedMessages()
				if len(steering) != 1 || len(followUp) != 1 {
					t.Errorf("queues after an ended run: %v %v", steering, followUp)
				}
			},
		},
		{
			name:  "continue with nothing to answer makes one request from the transcript",
			cfg:   decide(TurnContinue),
			steps: func(e *env) []step { return []step{reply("a1"), reply("a2")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(),
				"finishTurn assistant:stop", "turn_end assistant:stop []",
				"turn_start", textEvents(), "finishTurn assistant:stop", "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:stop"}) {
					t.Errorf("context-only request messages %v", got)
				}
			},
		},
		{
			name:  "continue is satisfied by the tool results: no extra request",
			cfg:   decide(TurnContinue),
			steps: func(e *env) []step { return []step{callTools(oneCall), reply("done")} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"finishTurn assistant:toolUse", "turn_end assistant:toolUse [toolResult:call_1]",
				"turn_start", textEvents(), "finishTurn assistant:stop", "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,assistant:stop]"),
		},
		{
			name:   "continue is satisfied by a follow-up: no extra request",
			cfg:    decide(TurnContinue),
			before: func(e *env) { e.a.FollowUp(user("f1")) },
			steps:  func(e *env) []step { return []step{reply("a1"), reply("a2")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(),
				"finishTurn assistant:stop", "turn_end assistant:stop []",
				"turn_start", userEvents("f1"), textEvents(), "finishTurn assistant:stop", "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:f1,assistant:stop]"),
		},
		{
			name: "an error turn is shown to FinishTurn, and the run ends whatever it says",
			cfg:  decide(TurnContinue),
			steps: func(e *env) []step {
				return []step{func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
					return b.Fail(provider.StopReasonError, "500")
				}}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), "message_start assistant", "message_end assistant:error",
				"finishTurn assistant:error", "turn_end assistant:error []", "agent_end [user:hi,assistant:error]"),
		},
		{
			name: "an error ends the run through the failure path",
			cfg: func(e **env) Config {
				return Config{FinishTurn: func(context.Context, TurnContext) (TurnDecision, error) {
					return TurnDefault, errors.New("hook failed")
				}}
			},
			steps: func(e *env) []step { return []step{reply("a1")} },
			want:  seq("agent_start", "turn_start", userEvents("hi"), textEvents(), failureEvents("error")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ep *env
			runScenario(t, scenario{
				cfg:    tc.cfg(&ep),
				tools:  func(e *env) []Tool { ep = e; return []Tool{echo(e, "echo")} },
				steps:  tc.steps,
				before: tc.before,
				want:   tc.want,
				check:  tc.check,
			})
		})
	}
}

func TestFinishTurnSeesTheTurn(t *testing.T) {
	var seen []TurnContext
	runScenario(t, scenario{
		cfg: Config{FinishTurn: func(_ context.Context, turn TurnContext) (TurnDecision, error) {
			seen = append(seen, turn)
			return TurnDefault, nil
		}},
		tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
		steps: func(e *env) []step {
			return []step{callTools([]callSpec{call("call_1", "echo", `{}`)}), reply("done")}
		},
	})
	if len(seen) != 2 {
		t.Fatalf("%d turns seen", len(seen))
	}
	first := seen[0]
	if first.Message.StopReason != provider.StopReasonToolUse || len(first.ToolResults) != 1 ||
		first.ToolResults[0].ToolCallID != "call_1" ||
		!slices.Equal(roles(first.Messages), []string{"system:+echo", "user:hi", "assistant:toolUse", "toolResult:call_1"}) ||
		!slices.Equal(roles(first.NewMessages), []string{"user:hi", "assistant:toolUse", "toolResult:call_1"}) {
		t.Errorf("first turn %+v", first)
	}
	if seen[1].Message.StopReason != provider.StopReasonStop || len(seen[1].ToolResults) != 0 || len(seen[1].NewMessages) != 4 {
		t.Errorf("second turn %+v", seen[1])
	}
}

func TestPrepareNextTurn(t *testing.T) {
	oneCall := []callSpec{call("call_1", "echo", `{}`)}
	tests := []struct {
		name    string
		prepare func(e *env, turn TurnContext, n int) NextTurn
		steps   func(e *env) []step
		before  func(e *env)
		want    []string
		check   func(t *testing.T, e *env)
	}{
		{
			name:  "runs after turn_end and before turn_start, never when the run ends",
			steps: func(e *env) []step { return []step{callTools(oneCall), reply("done")} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"prepareNextTurn assistant:toolUse", "turn_start", textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,assistant:stop]"),
		},
		{
			name:   "runs before a follow-up's turn",
			before: func(e *env) { e.a.FollowUp(user("f1")) },
			steps:  func(e *env) []step { return []step{reply("a1"), reply("a2")} },
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"prepareNextTurn assistant:stop", "turn_start", userEvents("f1"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:f1,assistant:stop]"),
		},
		{
			name: "its messages go before the steering message of the turn",
			prepare: func(e *env, turn TurnContext, n int) NextTurn {
				return NextTurn{Messages: []provider.Message{user("prepared")}}
			},
			steps: func(e *env) []step {
				return []step{callTools(oneCall, func() { e.a.Steer(user("s1")) }), reply("done")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"prepareNextTurn assistant:toolUse", "turn_start", userEvents("prepared"), userEvents("s1"),
				textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,user:prepared,user:s1,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				if got := roles(e.s.request(1).Messages); !slices.Equal(got, []string{"user:hi", "assistant:toolUse",
					"toolResult:call_1", "user:prepared", "user:s1"}) {
					t.Errorf("second request messages %v", got)
				}
			},
		},
		{
			name: "steering sent while it runs joins the turn when the first poll was empty",
			prepare: func(e *env, turn TurnContext, n int) NextTurn {
				e.a.Steer(user("during"))
				return NextTurn{}
			},
			steps: func(e *env) []step { return []step{callTools(oneCall), reply("done")} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"prepareNextTurn assistant:toolUse", "turn_start", userEvents("during"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,user:during,assistant:stop]"),
		},
		{
			name: "one at a time: no second poll when the first one delivered",
			prepare: func(e *env, turn TurnContext, n int) NextTurn {
				if n == 0 {
					e.a.Steer(user("during"))
				}
				return NextTurn{}
			},
			steps: func(e *env) []step {
				return []step{reply("a1", func() { e.a.Steer(user("s1")) }), reply("a2"), reply("a3")}
			},
			want: seq("agent_start", "turn_start", userEvents("hi"), textEvents(), "turn_end assistant:stop []",
				"prepareNextTurn assistant:stop", "turn_start", userEvents("s1"), textEvents(), "turn_end assistant:stop []",
				"prepareNextTurn assistant:stop", "turn_start", userEvents("during"), textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:stop,user:s1,assistant:stop,user:during,assistant:stop]"),
		},
		{
			// A prompt change is a system message among its messages; the tool change is declared in it.
			name: "the state it changes reaches the next request",
			prepare: func(e *env, turn TurnContext, n int) NextTurn {
				e.a.SetModel(&provider.Model{ID: "other", Provider: "mock2"})
				e.a.SetTools(nil)
				e.a.SetThinkingLevel(provider.ThinkingHigh)
				patch := provider.NewSystemMessage(1)
				patch.Content = []provider.Content{provider.TextContent("changed")}
				return NextTurn{Messages: []provider.Message{patch}}
			},
			steps: func(e *env) []step { return []step{callTools(oneCall), reply("ok")} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]",
				"prepareNextTurn assistant:toolUse", "turn_start", "message_start system:-echo", "message_end system:-echo",
				textEvents(), "turn_end assistant:stop []",
				"agent_end [user:hi,assistant:toolUse,toolResult:call_1,system:-echo,assistant:stop]"),
			check: func(t *testing.T, e *env) {
				r0, r1 := e.s.request(0), e.s.request(1)
				if r0.Options.Reasoning != "" || r0.Model != testModel || len(r0.Tools) != 1 || r0.SystemPrompt != "be brief" {
					t.Errorf("first request %+v", r0)
				}
				if r1.Model.ID != "other" || r1.SystemPrompt != "be brief\n\nchanged" || len(r1.Tools) != 0 || r1.Options.Reasoning != provider.ThinkingHigh {
					t.Errorf("second request did not see the prepared state: %+v", r1)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ep *env
			n := 0
			runScenario(t, scenario{
				cfg: Config{PrepareNextTurn: func(ctx context.Context, turn TurnContext) (NextTurn, error) {
					hookMark(ep, "prepareNextTurn "+msgLabel(turn.Message))
					var next NextTurn
					if tc.prepare != nil {
						next = tc.prepare(ep, turn, n)
					}
					n++
					return next, nil
				}},
				tools:  func(e *env) []Tool { ep = e; return []Tool{echo(e, "echo")} },
				steps:  tc.steps,
				before: tc.before,
				want:   tc.want,
				check:  tc.check,
			})
		})
	}

	t.Run("an error ends the run through the failure path", func(t *testing.T) {
		runScenario(t, scenario{
			cfg: Config{PrepareNextTurn: func(context.Context, TurnContext) (NextTurn, error) {
				return NextTurn{}, errors.New("compaction broke")
			}},
			tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
			steps: func(e *env) []step { return []step{callTools(oneCall)} },
			want: seq("agent_start", "turn_start", userEvents("hi"),
				toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
				"turn_end assistant:toolUse [toolResult:call_1]", failureEvents("error")),
		})
	})
}

func TestPrepareRequest(t *testing.T) {
	other := &provider.Model{ID: "other", Provider: "mock2"}
	var plans []string
	e := runScenario(t, scenario{
		cfg: Config{PrepareRequest: func(ctx context.Context, plan *RequestPlan) error {
			plans = append(plans, plan.Model.ID+" "+string(plan.ThinkingLevel)+" "+
				string(rune('0'+len(plan.Messages)))+" "+string(rune('0'+len(plan.Tools))))
			if len(plans) == 1 {
				// This request only: another model, no tools, an extra message, more thinking.
				plan.Model = other
				plan.Tools = nil
				plan.ThinkingLevel = provider.ThinkingLow
				plan.Messages = append(plan.Messages, user("injected"))
			}
			return nil
		}},
		tools: func(e *env) []Tool { return []Tool{echo(e, "echo")} },
		steps: func(e *env) []step {
			return []step{callTools([]callSpec{call("call_1", "echo", `{}`)}), reply("done")}
		},
		// The calls of an answer run against the plan's tools: none here (the request still declares the
		// transcript's, which only system messages change, as in pi 1.6).
		want: seq("agent_start", "turn_start", userEvents("hi"),
			toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1 error", resultEvents("call_1", true),
			"turn_end assistant:toolUse [toolResult:call_1:error]",
			"turn_start", textEvents(), "turn_end assistant:stop []",
			"agent_end [user:hi,assistant:toolUse,toolResult:call_1:error,assistant:stop]"),
	})
	if !slices.Equal(plans, []string{"mock-model off 2 1", "mock-model off 4 1"}) { // the leading system message counts
		t.Errorf("plans seen %v", plans)
	}
	r0, r1 := e.s.request(0), e.s.request(1)
	if r0.Model != other || len(r0.Tools) != 1 || r0.Options.Reasoning != provider.ThinkingLow ||
		!slices.Equal(roles(r0.Messages), []string{"user:hi", "user:injected"}) {
		t.Errorf("first request %+v", r0)
	}
	if r1.Model != testModel || len(r1.Tools) != 1 || r1.Options.Reasoning != "" {
		t.Errorf("second request kept the first one's plan: %+v", r1)
	}
	if got := roles(e.a.Messages()); !slices.Equal(got, []string{"system:+echo", "user:hi", "assistant:toolUse", "toolResult:call_1:error", "assistant:stop"}) {
		t.Errorf("the plan must not change the transcript: %v", got)
	}

	t.Run("an error ends the run through the failure path", func(t *testing.T) {
		runScenario(t, scenario{
			cfg:  Config{PrepareRequest: func(context.Context, *RequestPlan) error { return errors.New("no route") }},
			want: seq("agent_start", "turn_start", userEvents("hi"), failureEvents("error")),
		})
	})
}
