package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// scriptedTurn produces one assistant response.
type scriptedTurn func(b *provider.StreamBuilder) *provider.AssistantMessage

func textTurn(text string) scriptedTurn {
	return func(b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Text(text)
		return b.Finish()
	}
}

func errorTurn(msg string) scriptedTurn {
	return func(b *provider.StreamBuilder) *provider.AssistantMessage {
		return b.Fail(provider.StopReasonError, msg)
	}
}

func toolTurn(name, args string) scriptedTurn {
	return func(b *provider.StreamBuilder) *provider.AssistantMessage {
		i := 0
		b.ToolCall(&i, "call_1", name, args)
		b.SetStopReason("tool_calls", provider.StopReasonToolUse, "")
		return b.Finish()
	}
}

// script is a StreamFunc that plays turns in order and records every request.
type script struct {
	mu       sync.Mutex
	turns    []scriptedTurn
	requests []*provider.Request
	// gate, when set, is waited on before each response (lets a test act while a request is open).
	gate chan struct{}
}

func (s *script) stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var turn scriptedTurn
	if len(s.turns) > 0 {
		turn, s.turns = s.turns[0], s.turns[1:]
	}
	gate := s.gate
	s.mu.Unlock()
	b := provider.NewStreamBuilder(req.Model, emit)
	if gate != nil {
		b.Start()
		select {
		case <-gate:
		case <-ctx.Done():
			return b.Fail(provider.StopReasonAborted, "Request was aborted")
		}
	}
	if turn == nil {
		return b.Fail(provider.StopReasonError, "script exhausted")
	}
	return turn(b)
}

func (s *script) requestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

var testModel = &provider.Model{ID: "m1", Name: "M1", API: provider.APIOpenAICompletions, Provider: "test",
	BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text"}, ContextWindow: 100000, MaxTokens: 1000}

type harnessFixture struct {
	s      *Session
	script *script
	store  *session.Manager
	dir    string
	events *eventLog
}

type eventLog struct {
	mu     sync.Mutex
	events []Event
	ch     chan Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	select {
	case l.ch <- e:
	default:
	}
}

func (l *eventLog) types() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		out = append(out, e.Type)
	}
	return out
}

func (l *eventLog) ofType(t string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for _, e := range l.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func newFixture(t *testing.T, turns []scriptedTurn, mutate func(*Options)) *harnessFixture {
	t.Helper()
	dir := t.TempDir()
	store := session.Create(dir, filepath.Join(dir, "sessions"))
	sc := &script{turns: turns}
	opts := Options{
		Cwd:           dir,
		AgentDir:      filepath.Join(dir, "agent"),
		Settings:      config.InMemorySettings(config.Settings{}),
		Store:         store,
		Stream:        sc.stream,
		Model:         testModel,
		ThinkingLevel: provider.ThinkingOff,
		Sleep:         func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
	if mutate != nil {
		mutate(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	log := &eventLog{ch: make(chan Event, 1024)}
	s.Subscribe(log.add)
	t.Cleanup(func() { _ = s.Close() })
	return &harnessFixture{s: s, script: sc, store: store, dir: dir, events: log}
}

// fileEntries reads the session file's lines as generic objects.
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func entrySummary(e map[string]any) string {
	if e["type"] != "message" {
		return e["type"].(string)
	}
	return "message:" + e["message"].(map[string]any)["role"].(string)
}

func TestPromptPersistsEveryMessageInOrder(t *testing.T) {
	f := newFixture(t, []scriptedTurn{
		toolTurn("nope", `{}`),
		textTurn("done"),
	}, nil)
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		got = append(got, entrySummary(e))
	}
	// The prompt and tools are declared first, in the chain before the user message (pi 1.6).
	want := "session model_change thinking_level_change message:system message:user message:assistant message:toolResult message:assistant"
	if strings.Join(got, " ") != want {
		t.Errorf("file entries:\n got %v\nwant %s", got, want)
	}
	types := strings.Join(f.events.types(), " ")
	if !strings.HasPrefix(types, "agent_start turn_start message_start message_end message_start") ||
		!strings.HasSuffix(types, "turn_end agent_end agent_settled") {
		t.Errorf("events: %s", types)
	}
}

func TestPromptWhileBusy(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("first"), textTurn("after steer")}, nil)
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "one", nil, BehaviorNone) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
	if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); !errors.Is(err, ErrBusy) {
		t.Fatalf("prompt while busy: %v, want ErrBusy", err)
	}
	if err := f.s.Prompt(context.Background(), "steer me", nil, BehaviorSteer); err != nil {
		t.Fatal(err)
	}
	if n := f.s.PendingMessageCount(); n != 1 {
		t.Errorf("pending = %d, want 1", n)
	}
	close(f.script.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	updates := f.events.ofType(EventQueueUpdate)
	if len(updates) != 2 || len(updates[0].Steering) != 1 || len(updates[1].Steering) != 0 {
		t.Errorf("queue updates: %+v", updates)
	}
	msgs := f.s.Messages()
	last := msgs[len(msgs)-2].(*provider.UserMessage)
	if provider.TextOf(last.Content, "") != "steer me" {
		t.Errorf("steering not delivered: %+v", last)
	}
}

func isAssistant(e Event) bool {
	if e.Agent == nil || e.Agent.Message == nil {
		return false
	}
	_, ok := e.Agent.Message.(*provider.AssistantMessage)
	return ok
}

func waitForEvent(t *testing.T, log *eventLog, match func(Event) bool) Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-log.ch:
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("event not seen; got %v", log.types())
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	var delays []time.Duration
	f := newFixture(t, []scriptedTurn{
		errorTurn("429 Rate limit reached (retry after 1s)"),
		textTurn("ok"),
	}, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error { delays = append(delays, d); return nil }
	})
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	starts, ends := f.events.ofType(EventAutoRetryStart), f.events.ofType(EventAutoRetryEnd)
	if len(starts) != 1 || starts[0].Attempt != 1 || starts[0].MaxAttempts != 3 {
		t.Fatalf("retry starts: %+v", starts)
	}
	if len(ends) != 1 || !ends[0].Success || ends[0].Attempt != 1 {
		t.Fatalf("retry ends: %+v", ends)
	}
	if len(delays) != 1 || delays[0] < 2*time.Second || delays[0] > 2200*time.Millisecond {
		t.Errorf("delay %v: want base 2s (more than Retry-After 1s) plus jitter", delays)
	}
	reqs := f.script.requests
	if len(reqs) != 2 || len(reqs[0].Messages) != len(reqs[1].Messages) {
		t.Fatalf("second request must have the first request's context: %d requests", len(reqs))
	}
	for _, m := range f.s.Messages() {
		if a, ok := m.(*provider.AssistantMessage); ok && a.StopReason == provider.StopReasonError {
			t.Errorf("error message still in the transcript")
		}
	}
	var roles []string
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		roles = append(roles, entrySummary(e))
	}
	if strings.Count(strings.Join(roles, " "), "message:assistant") != 2 {
		t.Errorf("the failed attempt must stay in the file: %v", roles)
	}
}

func TestRetryGivesUp(t *testing.T) {
	f := newFixture(t, []scriptedTurn{errorTurn("503 unavailable"), errorTurn("503 unavailable"), errorTurn("503 unavailable")},
		func(o *Options) {
			max := 2
			o.Settings = config.InMemorySettings(config.Settings{Retry: config.RetrySettings{MaxRetries: &max}})
		})
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	starts, ends := f.events.ofType(EventAutoRetryStart), f.events.ofType(EventAutoRetryEnd)
	if len(starts) != 2 || starts[1].Attempt != 2 {
		t.Fatalf("starts: %+v", starts)
	}
	if len(ends) != 1 || ends[0].Success || ends[0].Attempt != 2 || ends[0].FinalError != "503 unavailable" {
		t.Fatalf("ends: %+v", ends)
	}
	if f.script.requestCount() != 3 {
		t.Errorf("requests = %d, want 3", f.script.requestCount())
	}
}

func TestAbortDuringRetryWait(t *testing.T) {
	waiting := make(chan struct{})
	f := newFixture(t, []scriptedTurn{errorTurn("overloaded")}, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			close(waiting)
			<-ctx.Done()
			return ctx.Err()
		}
	})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "hi", nil, BehaviorNone) }()
	<-waiting
	f.s.Abort()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ends := f.events.ofType(EventAutoRetryEnd)
	if len(ends) != 1 || ends[0].Success || ends[0].FinalError != "Retry cancelled" {
		t.Fatalf("ends: %+v", ends)
	}
	if f.s.IsStreaming() {
		t.Errorf("still busy after abort")
	}
}

func TestModelAndThinkingChangesAreRecorded(t *testing.T) {
	reasoning := *testModel
	reasoning.ID, reasoning.Reasoning = "m2", true
	f := newFixture(t, []scriptedTurn{textTurn("x")}, nil)
	if err := f.s.SetModel(&reasoning); err != nil {
		t.Fatal(err)
	}
	f.s.SetThinkingLevel(provider.ThinkingHigh)
	if f.s.ThinkingLevel() != provider.ThinkingHigh {
		t.Fatalf("level = %s", f.s.ThinkingLevel())
	}
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		switch e["type"] {
		case "model_change":
			got = append(got, "model:"+e["modelId"].(string))
		case "thinking_level_change":
			got = append(got, "thinking:"+e["thinkingLevel"].(string))
		}
	}
	// pi 1.6: with no saved default the current level (off) carries over to the reasoning model, so
	// only the change to high is recorded and announced.
	if strings.Join(got, " ") != "model:m1 thinking:off model:m2 thinking:high" {
		t.Errorf("entries: %v", got)
	}
	if n := len(f.events.ofType(EventThinkingLevelChanged)); n != 1 {
		t.Errorf("thinking_level_changed emitted %d times, want 1", n)
	}
	// A model without reasoning forces off.
	if err := f.s.SetModel(testModel); err != nil {
		t.Fatal(err)
	}
	if f.s.ThinkingLevel() != provider.ThinkingOff {
		t.Errorf("non-reasoning model must force off, got %s", f.s.ThinkingLevel())
	}
	// Switching saves no default (pi 1.6 leaves settings.json alone).
	if st := f.s.opts.Settings.Settings(); st.DefaultProvider != "" || st.DefaultModel != "" || st.DefaultThinkingLevel != "" {
		t.Errorf("settings written: %+v", st)
	}
	// A saved default level is what a switch asks for, clamped to the model.
	if err := f.s.opts.Settings.Set("defaultThinkingLevel", "max"); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetModel(&reasoning); err != nil {
		t.Fatal(err)
	}
	if f.s.ThinkingLevel() != provider.ThinkingHigh {
		t.Errorf("saved max on a model without max: %s, want high", f.s.ThinkingLevel())
	}
}

func TestPromptNeedsModelAndKey(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.Model = nil })
	err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone)
	if err == nil || !strings.HasPrefix(err.Error(), "No model selected.") {
		t.Errorf("no model: %v", err)
	}
	g := newFixture(t, nil, func(o *Options) { o.HasAuth = func(string) bool { return false } })
	err = g.s.Prompt(context.Background(), "hi", nil, BehaviorNone)
	if err == nil || !strings.HasPrefix(err.Error(), "No API key found for test.") {
		t.Errorf("no key: %v", err)
	}
}

func TestResumeRestoresTranscript(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("remember me")}, nil)
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	path := f.store.SessionFile()
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := &script{turns: []scriptedTurn{textTurn("again")}}
	s, err := New(Options{Cwd: f.dir, Settings: config.InMemorySettings(config.Settings{}), Store: store,
		Stream: sc.stream, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Messages()); n != 3 {
		t.Fatalf("restored %d messages, want 3 (system, user, assistant)", n)
	}
	if err := s.Prompt(context.Background(), "next", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if got := len(sc.requests[0].Messages); got != 3 {
		t.Errorf("the next request must carry the whole history: %d messages", got)
	}
}

func TestBashDeferredWhileStreaming(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("a")}, nil)
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "one", nil, BehaviorNone) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
	res, err := f.s.ExecuteBash(context.Background(), "echo hello", false, nil)
	if err != nil || strings.TrimSpace(res.Output) != "hello" {
		t.Fatalf("bash: %+v %v", res, err)
	}
	for _, m := range f.s.Messages() {
		if _, ok := m.(*provider.BashExecutionMessage); ok {
			t.Fatal("bash result added in the middle of a run")
		}
	}
	close(f.script.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msgs := f.s.Messages()
	if _, ok := msgs[len(msgs)-1].(*provider.BashExecutionMessage); !ok {
		t.Errorf("bash result not added after the run: %T", msgs[len(msgs)-1])
	}
}

// The session's own events marshal exactly as pi writes them.
func TestSessionEventJSON(t *testing.T) {
	cases := map[string]Event{
		`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"x"}`: {Type: EventAutoRetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "x"},
		`{"type":"auto_retry_end","success":false,"attempt":2,"finalError":"y"}`:                    {Type: EventAutoRetryEnd, Attempt: 2, FinalError: "y"},
		`{"type":"queue_update","steering":["a"],"followUp":[]}`:                                    {Type: EventQueueUpdate, Steering: []string{"a"}},
		`{"type":"compaction_start","reason":"threshold"}`:                                          {Type: EventCompactionStart, Reason: CompactionThreshold},
		`{"type":"compaction_end","reason":"overflow","aborted":false,"willRetry":false,"errorMessage":"z"}`: {
			Type: EventCompactionEnd, Reason: CompactionOverflow, ErrorMessage: "z"},
		`{"type":"agent_start"}`: agentEvent(loop.Event{Type: loop.EventAgentStart}),
	}
	for want, e := range cases {
		got, err := e.MarshalJSON()
		if err != nil || string(got) != want {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
}

// A message steered or queued after the loop's last poll (here: while agent_end is delivered) is not
// left waiting for the next prompt: the session runs again with it before it settles (pi 1.6).
func TestMessagesQueuedAsTheRunEndsAreDelivered(t *testing.T) {
	for _, behavior := range []StreamingBehavior{BehaviorSteer, BehaviorFollowUp} {
		t.Run(string(behavior), func(t *testing.T) {
			f := newFixture(t, []scriptedTurn{textTurn("first"), textTurn("second")}, nil)
			var once sync.Once
			f.s.Agent().Subscribe(func(e loop.Event) {
				if e.Type == loop.EventAgentEnd {
					once.Do(func() {
						if err := f.s.Prompt(context.Background(), "late", nil, behavior); err != nil {
							t.Error(err)
						}
					})
				}
			})
			if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
				t.Fatal(err)
			}
			if n := f.script.requestCount(); n != 2 {
				t.Fatalf("%d requests, want 2 (the late message answered)", n)
			}
			msgs := f.s.Messages()
			if got := provider.TextOf(msgs[len(msgs)-2].(*provider.UserMessage).Content, ""); got != "late" {
				t.Errorf("second request answered %q, want the late message", got)
			}
			if n := f.s.PendingMessageCount(); n != 0 {
				t.Errorf("%d messages still queued", n)
			}
		})
	}
}
