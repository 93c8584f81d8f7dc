package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// userEntryID returns the id of the first user message entry whose text is text.
func userEntryID(t *testing.T, store *session.Manager, text string) string {
	t.Helper()
	for _, fm := range (&Session{store: store}).ForkMessages() {
		if fm.Text == text {
			return fm.EntryID
		}
	}
	t.Fatalf("no user entry %q", text)
	return ""
}

// A fork drops what was queued for the old session (pi builds a fresh agent), so a steering message
// typed before the fork never reaches the fork's next request; and replacing a session with nothing
// queued emits no queue_update (pi emits none).
func TestSessionReplacementDropsQueuedMessages(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("first answer"), textTurn("never"), textTurn("on the fork")}, nil)
	if err := f.s.Prompt(context.Background(), "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	for len(f.events.ch) > 0 { // the first run's events
		<-f.events.ch
	}
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "second", nil, BehaviorNone) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
	f.s.Steer("stale steering", nil)
	f.s.FollowUp("stale follow-up", nil)
	before := len(f.events.ofType(EventQueueUpdate))
	if _, err := f.s.Fork(userEntryID(t, f.store, "second")); err != nil {
		t.Fatal(err)
	}
	<-done
	if st, fu := f.s.QueuedTexts(); len(st)+len(fu) != 0 {
		t.Errorf("display queues after fork: %v %v", st, fu)
	}
	if st, fu := f.s.Agent().QueuedMessages(); len(st)+len(fu) != 0 {
		t.Errorf("agent queues after fork: %d steering, %d follow-up", len(st), len(fu))
	}
	updates := f.events.ofType(EventQueueUpdate)[before:]
	if len(updates) != 1 || len(updates[0].Steering)+len(updates[0].FollowUp) != 0 {
		t.Errorf("queue updates after fork: %+v, want one empty update", updates)
	}

	f.script.gate = nil
	if err := f.s.Prompt(context.Background(), "second again", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	last := f.script.requests[len(f.script.requests)-1]
	for _, m := range last.Messages {
		if u, ok := m.(*provider.UserMessage); ok {
			if txt := provider.TextOf(u.Content, ""); txt == "stale steering" || txt == "stale follow-up" {
				t.Errorf("the fork's request carries %q from the old session", txt)
			}
		}
	}

	before = len(f.events.ofType(EventQueueUpdate))
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SwitchSession(f.store.SessionFile()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.events.ofType(EventQueueUpdate)) - before; n != 0 {
		t.Errorf("%d queue_update events for new_session/switch_session with empty queues, want 0", n)
	}
}

// entryKinds summarises the model and thinking entries of the store: "model:<id>" and "thinking:<level>".
func entryKinds(store *session.Manager) []string {
	var out []string
	for _, e := range store.Entries() {
		switch e.Type {
		case session.TypeModelChange:
			out = append(out, "model:"+e.ModelID)
		case session.TypeThinkingLevelChange:
			out = append(out, "thinking:"+e.ThinkingLevel)
		}
	}
	return out
}

func reasoningTestModel() *provider.Model {
	m := *testModel
	m.ID, m.Name, m.Reasoning = "m2", "M2", true
	return &m
}

func withRegistry(models ...*provider.Model) func(*Options) {
	return func(o *Options) {
		var list []provider.Model
		for _, m := range models {
			list = append(list, *m)
		}
		o.Models = provider.NewRegistry(list, nil)
	}
}

// pi 0.73.1 builds every replacement session from the command line again: a model named there (and
// a thinking level named there) wins over the model and level of the session forked, switched to or
// started, whatever was selected since.
func TestReplacementsApplyTheCommandLineModelAndLevel(t *testing.T) {
	m2 := reasoningTestModel()
	f := newFixture(t, []scriptedTurn{textTurn("a1"), textTurn("a2")}, func(o *Options) {
		withRegistry(testModel, m2)(o)
		o.KeepModel = true
	})
	m2 = f.s.opts.Models.Find("test", "m2")
	if err := f.s.SetModel(m2); err != nil {
		t.Fatal(err)
	}
	f.s.SetThinkingLevel(provider.ThinkingHigh)
	if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	original := f.store.SessionFile()
	check := func(step string) {
		t.Helper()
		if m := f.s.Model(); m == nil || m.ID != testModel.ID {
			t.Errorf("%s: model %v, want the command line's %s", step, m, testModel.ID)
		}
		if l := f.s.ThinkingLevel(); l != provider.ThinkingOff {
			t.Errorf("%s: thinking %s, want off (the session's high clamped to %s)", step, l, testModel.ID)
		}
	}
	if _, err := f.s.Fork(userEntryID(t, f.store, "two")); err != nil {
		t.Fatal(err)
	}
	check("fork")
	if got := entryKinds(f.store); got[len(got)-1] != "thinking:high" {
		t.Errorf("fork appended level entries: %v", got)
	}
	if err := f.s.SwitchSession(original); err != nil {
		t.Fatal(err)
	}
	check("switch_session")
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	check("new_session")
	if got := strings.Join(entryKinds(f.s.Store()), " "); got != "model:m1 thinking:off" {
		t.Errorf("new session entries %q, want the model and level it starts with", got)
	}

	// A thinking level from the command line wins too, and is not recorded over the session's own.
	g := newFixture(t, []scriptedTurn{textTurn("a1")}, func(o *Options) {
		withRegistry(testModel, m2)(o)
		o.Model, o.KeepModel = m2, true
		o.ThinkingLevel, o.KeepThinking = provider.ThinkingLow, true
	})
	g.s.SetThinkingLevel(provider.ThinkingHigh)
	if err := g.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	first := g.store.SessionFile()
	before := strings.Join(entryKinds(g.store), " ")
	if err := g.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entryKinds(g.s.Store()), " "); got != "model:m2 thinking:low" {
		t.Errorf("new session with --thinking low: entries %q", got)
	}
	if err := g.s.SwitchSession(first); err != nil {
		t.Fatal(err)
	}
	if l := g.s.ThinkingLevel(); l != provider.ThinkingLow {
		t.Errorf("switch_session with --thinking low: level %s", l)
	}
	if after := strings.Join(entryKinds(g.s.Store()), " "); after != before {
		t.Errorf("switching recorded level entries: %q, then %q", before, after)
	}
}

// Without a model on the command line, a fork takes the model of the branch it copies (pi opens the
// fork as a resumed session), and a new session starts on the saved default model and level (which
// switching does not save).
func TestReplacementsRestoreTheSessionModel(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("a1"), textTurn("a2")}, withRegistry(testModel, reasoningTestModel()))
	m2 := f.s.opts.Models.Find("test", "m2")
	m1 := f.s.opts.Models.Find("test", "m1")
	if err := f.s.SetModel(m2); err != nil {
		t.Fatal(err)
	}
	f.s.SetThinkingLevel(provider.ThinkingHigh)
	if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetModel(m1); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetModel(m2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Fork(userEntryID(t, f.store, "two")); err != nil {
		t.Fatal(err)
	}
	if m := f.s.Model(); m == nil || m.ID != "m1" {
		t.Errorf("fork before the user message that followed the switch to m1: model %v, want m1", m)
	}

	if err := f.s.SetModel(m1); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"defaultProvider": "test", "defaultModel": "m2", "defaultThinkingLevel": "low"} {
		if err := f.s.opts.Settings.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entryKinds(f.s.Store()), " "); got != "model:m2 thinking:low" {
		t.Errorf("new session entries %q, want the saved default model and level", got)
	}
}

// pi 1.6: with no saved default, a new session starts on the startup model again; the model switched to
// last does not carry over, since switching saves no default.
func TestNewSessionStartsOnTheStartupModel(t *testing.T) {
	f := newFixture(t, nil, withRegistry(testModel, reasoningTestModel()))
	if err := f.s.SetModel(f.s.opts.Models.Find("test", "m2")); err != nil {
		t.Fatal(err)
	}
	f.s.SetThinkingLevel(provider.ThinkingHigh)
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entryKinds(f.s.Store()), " "); got != "model:m1 thinking:off" {
		t.Errorf("new session entries %q, want the startup model with the default level clamped", got)
	}
	if m := f.s.Model(); m == nil || m.ID != "m1" || f.s.ThinkingLevel() != provider.ThinkingOff {
		t.Errorf("new session on %v at %s", m, f.s.ThinkingLevel())
	}
}

// switch_session to the session's own file re-opens it (pi allows it; pi-go must let go of its own lock
// first) and the session goes on in the same file.
func TestSwitchSessionToItsOwnFile(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("a1"), textTurn("a2")}, nil)
	if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	path := f.store.SessionFile()
	if err := f.s.SwitchSession(path); err != nil {
		t.Fatalf("switching to the open file: %v", err)
	}
	if n := len(f.s.Messages()); n != 3 {
		t.Errorf("%d messages after re-opening, want 3", n)
	}
	if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, e := range fileEntries(t, path) {
		if e["type"] == "message" {
			roles = append(roles, e["message"].(map[string]any)["role"].(string))
		}
	}
	// The re-opened session declared its prompt already: no second system message.
	if strings.Join(roles, ",") != "system,user,assistant,user,assistant" {
		t.Errorf("messages in the file: %v", roles)
	}
}

// The request headers of a model (models.json "headers" and authHeader) go with every request of a
// run, resolved together with the key by one RequestAuth call per request.
func TestRequestsCarryTheModelsHeaders(t *testing.T) {
	var calls atomic.Int32
	f := newFixture(t, []scriptedTurn{toolTurn("nope", `{}`), textTurn("a1")}, func(o *Options) {
		o.RequestAuth = func(ctx context.Context, m *provider.Model) (string, map[string]string, error) {
			n := calls.Add(1)
			return fmt.Sprintf("key-%d", n), map[string]string{"X-Team": "blue", "Authorization": fmt.Sprintf("Bearer key-%d", n)}, nil
		}
	})
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if n, reqs := calls.Load(), f.script.requestCount(); n != 2 || reqs != 2 {
		t.Fatalf("%d credential resolutions for %d requests, want 2 for 2", n, reqs)
	}
	for i, req := range f.script.requests {
		key := fmt.Sprintf("key-%d", i+1)
		if o := req.Options; o.APIKey != key || o.Headers["X-Team"] != "blue" || o.Headers["Authorization"] != "Bearer "+key {
			t.Errorf("request %d options: key %q, headers %v", i, o.APIKey, o.Headers)
		}
	}
}

// Credentials that cannot be resolved (a failing key command, say) end the run before the request,
// through the loop's failure path: as in pi 1.6 the synthetic error message has its message events and
// a turn_end, so it is in the transcript and the session file.
func TestRequestAuthFailureEndsTheRunBeforeTheRequest(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("never")}, func(o *Options) {
		o.RequestAuth = func(context.Context, *provider.Model) (string, map[string]string, error) {
			return "", nil, errors.New("apiKey command failed: exit status 1")
		}
	})
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if n := f.script.requestCount(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	// The prompt's system message and user message, then the failure.
	if got := strings.Join(f.events.types(), ","); got != "agent_start,turn_start,message_start,message_end,message_start,message_end,"+
		"message_start,message_end,turn_end,agent_end,agent_settled" {
		t.Errorf("events %s", got)
	}
	msgs := f.s.Messages()
	last, ok := msgs[len(msgs)-1].(*provider.AssistantMessage)
	if !ok || last.StopReason != provider.StopReasonError || last.ErrorMessage != "apiKey command failed: exit status 1" {
		t.Errorf("last message %#v", msgs[len(msgs)-1])
	}
	entries := f.s.Store().Entries()
	stored, err := entries[len(entries)-1].Message()
	if a, ok := stored.(*provider.AssistantMessage); err != nil || !ok || a.ErrorMessage != last.ErrorMessage {
		t.Errorf("last session entry %v, %v", stored, err)
	}
}

// Fork candidates are the user messages of every branch, in file order (pi's
// getUserMessagesForForking reads all entries), not only those of the active branch.
func TestForkMessagesListEveryBranch(t *testing.T) {
	store := session.InMemory(t.TempDir())
	add := func(m provider.Message) string {
		id, err := store.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := add(provider.NewUserMessage("first"))
	add(&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("a")}, StopReason: provider.StopReasonStop})
	add(provider.NewUserMessage("on the old branch"))
	if err := store.Branch(first); err != nil {
		t.Fatal(err)
	}
	add(provider.NewUserMessage("on the new branch"))
	var texts []string
	for _, fm := range (&Session{store: store}).ForkMessages() {
		texts = append(texts, fm.Text)
	}
	if got := strings.Join(texts, "|"); got != "first|on the old branch|on the new branch" {
		t.Errorf("fork messages %q", got)
	}
}
