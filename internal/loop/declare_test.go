package loop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func toolNames(defs []provider.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func sectionPatch(ts int64, kv ...string) *provider.SystemMessage {
	m := provider.NewSystemMessage(ts)
	for i := 0; i < len(kv); i += 2 {
		m.Sections = append(m.Sections, provider.PromptSection{Name: kv[i], Text: kv[i+1]})
	}
	return m
}

// An agent built without prompt or tools declares its tools before the first request, in a system
// message of their own ahead of the prompt; with nothing to declare it adds none.
func TestToolsAreDeclaredBeforeTheFirstRequest(t *testing.T) {
	s := newScript(t, reply("a"), reply("b"))
	a := NewAgent(Config{Stream: s.stream}, State{Model: testModel})
	rec := &recorder{}
	a.Subscribe(rec.push)
	if err := a.Prompt(context.Background(), user("one")); err != nil {
		t.Fatal(err)
	}
	if r := s.request(0); r.SystemPrompt != "" || r.Tools != nil {
		t.Errorf("nothing to declare, yet %+v", r)
	}
	a.SetTools([]Tool{&testTool{name: "read"}, &testTool{name: "bash"}})
	if err := a.Prompt(context.Background(), user("two")); err != nil {
		t.Fatal(err)
	}
	diffLines(t, rec.snapshot(), seq(
		"agent_start", "turn_start", userEvents("one"), textEvents(), "turn_end assistant:stop []", "agent_end [user:one,assistant:stop]",
		"agent_start", "turn_start", "message_start system:+read +bash", "message_end system:+read +bash", userEvents("two"),
		textEvents(), "turn_end assistant:stop []", "agent_end [system:+read +bash,user:two,assistant:stop]"))
	r := s.request(1)
	if got := toolNames(r.Tools); !slices.Equal(got, []string{"read", "bash"}) {
		t.Errorf("request tools %v", got)
	}
	if got := roles(r.Messages); !slices.Equal(got, []string{"user:one", "assistant:stop", "user:two"}) {
		t.Errorf("request messages %v", got)
	}
}

// A system message among the prompt messages (the harness's prompt patch) carries the tool changes
// itself: its own tool fields are intent and are replaced by the difference with the transcript.
func TestAPromptSystemMessageCarriesTheToolChanges(t *testing.T) {
	s := newScript(t, reply("a"), reply("b"))
	a := NewAgent(Config{Stream: s.stream}, State{Model: testModel, Tools: []Tool{&testTool{name: "read"}}})
	rec := &recorder{}
	a.Subscribe(rec.push)

	patch := sectionPatch(1, "preamble", "P", "cwd", "C")
	patch.ToolsAdded = []provider.ToolDefinition{{Name: "bogus"}}
	if err := a.Prompt(context.Background(), patch, user("one")); err != nil {
		t.Fatal(err)
	}
	// read was declared by the leading message NewAgent made: nothing to add, and the bogus intent goes.
	a.SetTools([]Tool{&testTool{name: "read", schema: `{"type":"object"}`}, &testTool{name: "ls"}})
	if err := a.Prompt(context.Background(), sectionPatch(2, "cwd", "D"), user("two")); err != nil {
		t.Fatal(err)
	}
	diffLines(t, rec.snapshot(), seq(
		"agent_start", "turn_start", "message_start system:§preamble §cwd", "message_end system:§preamble §cwd",
		userEvents("one"), textEvents(), "turn_end assistant:stop []", "agent_end [system:§preamble §cwd,user:one,assistant:stop]",
		// read's schema changed: it is removed and added again, ls is new
		"agent_start", "turn_start", "message_start system:§cwd +read +ls -read", "message_end system:§cwd +read +ls -read",
		userEvents("two"), textEvents(), "turn_end assistant:stop []", "agent_end [system:§cwd +read +ls -read,user:two,assistant:stop]"))
	if p := s.request(0).SystemPrompt; p != "P\n\nC" {
		t.Errorf("first prompt %q", p)
	}
	r := s.request(1)
	if r.SystemPrompt != "P\n\nD" || !slices.Equal(toolNames(r.Tools), []string{"read", "ls"}) || string(r.Tools[0].Parameters) != `{"type":"object"}` {
		t.Errorf("second request prompt %q tools %+v", r.SystemPrompt, r.Tools)
	}
	if got := a.State().SystemPrompt; got != "P\n\nD" {
		t.Errorf("State().SystemPrompt %q", got)
	}
	if got := a.SystemPrompt(); got != "P\n\nD" {
		t.Errorf("SystemPrompt() %q", got)
	}
}

// Tools changed while a run goes on are declared before the next request: ahead of the steering
// message that request delivers, and after turn_start.
func TestToolChangesMidRunComeBeforeSteering(t *testing.T) {
	var a *Agent
	s := newScript(t,
		callTools([]callSpec{call("call_1", "read", `{}`)}, func() {
			a.SetTools([]Tool{&testTool{name: "read"}, &testTool{name: "grep"}})
			a.Steer(user("steer"))
		}),
		reply("done"))
	a = NewAgent(Config{Stream: s.stream}, State{Model: testModel, Tools: []Tool{&testTool{name: "read"}}})
	rec := &recorder{}
	a.Subscribe(rec.push)
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	diffLines(t, rec.snapshot(), seq("agent_start", "turn_start", userEvents("hi"), toolCallEvents(1),
		"tool_execution_start call_1", "tool_execution_end call_1", resultEvents("call_1", false),
		"turn_end assistant:toolUse [toolResult:call_1]",
		"turn_start", "message_start system:+grep", "message_end system:+grep", userEvents("steer"), textEvents(),
		"turn_end assistant:stop []",
		"agent_end [user:hi,assistant:toolUse,toolResult:call_1,system:+grep,user:steer,assistant:stop]"))
	if got := toolNames(s.request(1).Tools); !slices.Equal(got, []string{"read", "grep"}) {
		t.Errorf("second request tools %v", got)
	}
}

// Continue declares a changed tool set too, after turn_start; a transcript of system messages only
// has nothing to continue from.
func TestContinueDeclaresToolChanges(t *testing.T) {
	s := newScript(t, reply("a"))
	a := NewAgent(Config{Stream: s.stream}, State{Model: testModel, Tools: []Tool{&testTool{name: "read"}}})
	if err := a.Continue(context.Background()); !errors.Is(err, ErrNoMessagesToContinue) {
		t.Fatalf("only system messages: %v", err)
	}
	a.AppendMessage(user("retry me"))
	a.SetTools(nil)
	rec := &recorder{}
	a.Subscribe(rec.push)
	if err := a.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	diffLines(t, rec.snapshot(), seq("agent_start", "turn_start", "message_start system:-read", "message_end system:-read",
		textEvents(), "turn_end assistant:stop []", "agent_end [system:-read,assistant:stop]"))
	if r := s.request(0); r.Tools != nil || len(r.Messages) != 1 {
		t.Errorf("request %+v", r)
	}
}

// Reset keeps one system message, the replay of the transcript's: the prompt and the tools stay
// declared.
func TestResetKeepsThePromptBaseline(t *testing.T) {
	s := newScript(t, reply("a"), reply("b"))
	a := NewAgent(Config{Stream: s.stream}, State{Model: testModel, SystemPrompt: "base", Tools: []Tool{&testTool{name: "read"}}})
	if err := a.Prompt(context.Background(), sectionPatch(5, "cwd", "C"), user("one")); err != nil {
		t.Fatal(err)
	}
	a.Reset()
	msgs := a.Messages()
	if len(msgs) != 1 {
		t.Fatalf("after Reset: %v", roles(msgs))
	}
	head := msgs[0].(*provider.SystemMessage)
	if head.Text() != "base" || len(head.Sections) != 1 || !slices.Equal(toolNames(head.ToolsAdded), []string{"read"}) || head.Timestamp != 0 {
		t.Errorf("baseline %+v", head)
	}
	if err := a.Prompt(context.Background(), user("two")); err != nil {
		t.Fatal(err)
	}
	if r := s.request(1); r.SystemPrompt != "base\n\nC" || len(r.Tools) != 1 || len(r.Messages) != 1 {
		t.Errorf("request after Reset %+v", r)
	}
}
