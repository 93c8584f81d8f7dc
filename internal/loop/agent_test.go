package loop

import (
	"context"
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestSubscribe(t *testing.T) {
	s := newScript(t, reply("a"), reply("b"))
	a := NewAgent(Config{Stream: s.stream}, State{Model: testModel})
	var first, second []EventType
	var unsubscribeSecond func()
	unsubscribeFirst := a.Subscribe(func(ev Event) {
		first = append(first, ev.Type)
		if ev.Type == EventTurnStart {
			// Takes effect from the next event; calling it twice is harmless.
			unsubscribeSecond()
			unsubscribeSecond()
		}
	})
	unsubscribeSecond = a.Subscribe(func(ev Event) {
		second = append(second, ev.Type)
		// The state is updated before a subscriber sees the event.
		if ev.Type == EventAgentStart && !a.State().IsStreaming {
			t.Error("not streaming at agent_start")
		}
	})
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(second, []EventType{EventAgentStart, EventTurnStart}) {
		t.Errorf("second subscriber saw %v", second)
	}
	if len(first) != 11 {
		t.Errorf("first subscriber saw %d events", len(first))
	}
	unsubscribeFirst()
	n := len(first)
	if err := a.Prompt(context.Background(), user("again")); err != nil {
		t.Fatal(err)
	}
	if len(first) != n {
		t.Error("an unsubscribed listener was called")
	}
}

func TestReducerDuringRun(t *testing.T) {
	var e *env
	var streaming []string
	var pendingAtStart, pendingAtEnd int
	runScenario(t, scenario{
		tools: func(env *env) []Tool {
			e = env
			return []Tool{echo(env, "echo")}
		},
		before: func(e *env) {
			e.rec.on = func(ev Event) {
				st := e.a.State()
				switch ev.Type {
				case EventMessageUpdate, EventMessageStart:
					if st.StreamingMessage != nil {
						streaming = append(streaming, string(ev.Type))
					}
				case EventToolExecutionStart:
					pendingAtStart = len(st.PendingToolCalls)
				case EventToolExecutionEnd:
					pendingAtEnd = len(st.PendingToolCalls)
				case EventMessageEnd:
					if st.StreamingMessage != nil {
						t.Error("streaming message kept after message_end")
					}
					if last := st.Messages[len(st.Messages)-1]; last != ev.Message {
						t.Error("message_end did not append the message before subscribers ran")
					}
				}
			}
		},
		steps: func(e *env) []step { return []step{callTools([]callSpec{call("call_1", "echo", `{}`)}), reply("ok")} },
		want: seq("agent_start", "turn_start", userEvents("hi"),
			toolCallEvents(1), "tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
			"turn_end assistant:toolUse [toolResult:call_1]",
			"turn_start", textEvents(), "turn_end assistant:stop []",
			"agent_end [user:hi,assistant:toolUse,toolResult:call_1,assistant:stop]"),
	})
	_ = e
	// Two assistant messages: message_start plus 3 updates each.
	if len(streaming) != 8 {
		t.Errorf("streaming message set on %d events, want 8", len(streaming))
	}
	if pendingAtStart != 1 || pendingAtEnd != 0 {
		t.Errorf("pending tool calls %d at start, %d at end", pendingAtStart, pendingAtEnd)
	}
}

func TestAgentSettersAndQueues(t *testing.T) {
	s := newScript(t, reply("a"))
	a := NewAgent(Config{Stream: s.stream, StreamOptions: provider.StreamOptions{SessionID: "base"}}, State{Model: testModel, Messages: []provider.Message{user("old")}})
	if a.SteeringMode() != QueueOneAtATime || a.FollowUpMode() != QueueOneAtATime || a.SessionID() != "base" {
		t.Fatal("defaults")
	}
	if a.State().ThinkingLevel != provider.ThinkingOff {
		t.Error("thinking level default")
	}
	a.SetSteeringMode(QueueAll)
	a.SetFollowUpMode("bogus")
	if a.SteeringMode() != QueueAll || a.FollowUpMode() != QueueOneAtATime {
		t.Error("modes")
	}
	if _, err := ParseQueueMode("bogus"); err == nil {
		t.Error("ParseQueueMode accepted bogus")
	}
	if m, err := ParseQueueMode("all"); err != nil || m != QueueAll {
		t.Error("ParseQueueMode(all)")
	}
	a.Steer(user("s1"))
	a.FollowUp(user("f1"))
	a.ClearSteeringQueue()
	if st, fu := a.QueuedMessages(); len(st) != 0 || len(fu) != 1 || !a.HasQueuedMessages() {
		t.Error("ClearSteeringQueue")
	}
	a.ClearFollowUpQueue()
	if a.HasQueuedMessages() {
		t.Error("ClearFollowUpQueue")
	}
	a.Steer(user("s1"))
	a.Steer(user("s2"))
	a.FollowUp(user("f1"))
	steering, followUps := a.ClearAllQueues()
	if len(steering) != 2 || msgLabel(steering[1]) != "user:s2" || len(followUps) != 1 || a.HasQueuedMessages() {
		t.Error("ClearAllQueues")
	}

	snap := a.State()
	snap.Messages[0] = user("mutated")
	if msgLabel(a.Messages()[0]) != "user:old" {
		t.Error("State() shares the transcript")
	}
	a.SetSessionID("s-2")
	if err := a.PromptText(context.Background(), "look", provider.ImageContent("AAAA", "image/png")); err != nil {
		t.Fatal(err)
	}
	req := s.request(0)
	if req.Options.SessionID != "s-2" {
		t.Errorf("session id %q", req.Options.SessionID)
	}
	prompt := req.Messages[1].(*provider.UserMessage)
	if len(prompt.Content) != 2 || prompt.Content[0].Text != "look" || prompt.Content[1].Type != provider.ContentImage {
		t.Errorf("PromptText message %+v", prompt.Content)
	}

	a.Steer(user("s3"))
	a.FollowUp(user("f3"))
	a.Reset()
	if st := a.State(); len(st.Messages) != 0 || st.ErrorMessage != "" || a.HasQueuedMessages() || st.Model != testModel {
		t.Errorf("Reset left %+v", st)
	}
}
