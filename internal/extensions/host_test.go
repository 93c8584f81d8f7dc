package extensions

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

	"github.com/pi-go/pi-go/internal/loop"
)

// fakeHost starts the test binary as one protocol extension with the given behaviour.
func fakeHost(t *testing.T, mode string, cfg Config) (*Host, *errorLog) {
	t.Helper()
	t.Setenv("PI_GO_FAKE_EXTENSION", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := &errorLog{}
	cfg.Executables = []string{exe}
	cfg.Cwd = t.TempDir()
	cfg.OnError = log.add
	h := New(cfg)
	h.Start()
	t.Cleanup(h.Close)
	return h, log
}

type errorLog struct {
	mu   sync.Mutex
	errs []ExtensionError
}

func (l *errorLog) add(e ExtensionError) { l.mu.Lock(); l.errs = append(l.errs, e); l.mu.Unlock() }
func (l *errorLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.errs {
		b.WriteString(e.Event + ": " + e.Error + "\n")
	}
	return b.String()
}

func TestEmptyHostStartsNothing(t *testing.T) {
	h := New(Config{})
	if !h.Empty() {
		t.Fatal("a host without extensions is not empty")
	}
	h.Start()
	if got := h.Tools(context.Background()); got != nil {
		t.Fatalf("tools of an empty host: %v", got)
	}
	if out := h.ToolCall(context.Background(), "bash", "c1", json.RawMessage(`{}`)); out.Block || out.Input != nil {
		t.Fatalf("tool_call without extensions: %+v", out)
	}
	h.Close()
}

func TestToolCallBlocksAndChangesArguments(t *testing.T) {
	h, log := fakeHost(t, "ok", Config{})
	ctx := context.Background()
	out := h.ToolCall(ctx, "bash", "c1", json.RawMessage(`{"command":"rm -rf /"}`))
	if !out.Block || out.Reason != "no rm" || !out.Terminate {
		t.Fatalf("rm -rf: %+v", out)
	}
	out = h.ToolCall(ctx, "bash", "c2", json.RawMessage(`{"command":"ls"}`))
	if out.Block || string(out.Input) != `{"command":"ls --safe"}` {
		t.Fatalf("ls: %+v %s", out, out.Input)
	}
	if in := h.Input(ctx, "shout hello", nil, "interactive", ""); in.Action != "transform" || in.Text != "HELLO" {
		t.Fatalf("input: %+v", in)
	}
	if log.text() != "" {
		t.Fatalf("errors: %s", log.text())
	}
}

func TestToolStreamsUpdates(t *testing.T) {
	h, _ := fakeHost(t, "ok", Config{})
	tools := h.Tools(context.Background())
	if len(tools) != 1 || tools[0].Definition().Name != "slow" {
		t.Fatalf("tools: %v", tools)
	}
	var updates []string
	res, err := tools[0].Execute(context.Background(), loop.ToolCall{ID: "t1", Name: "slow", Args: json.RawMessage(`{}`)},
		func(r loop.ToolResult) { updates = append(updates, r.Content[0].Text) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(updates, ",") != "step 1,step 2,step 3" || res.Content[0].Text != "done" {
		t.Fatalf("updates %v result %+v", updates, res)
	}
}

func TestCommandAsksTheUser(t *testing.T) {
	h, _ := fakeHost(t, "ok", Config{})
	var mu sync.Mutex
	var seen []string
	notified := make(chan struct{})
	h.SetHandler(func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		seen = append(seen, p["method"].(string))
		mu.Unlock()
		if p["method"] == "confirm" {
			return json.RawMessage(`{"confirmed":true}`), nil
		}
		if p["method"] == "notify" && p["message"] == "confirmed=true" {
			close(notified)
		}
		return nil, nil
	})
	found, err := h.RunCommand(context.Background(), "ask", "now")
	if !found || err != nil {
		t.Fatalf("found %v err %v", found, err)
	}
	<-notified
	if names := h.Commands(); len(names) != 1 || names[0].Name != "ask" {
		t.Fatalf("commands: %+v", names)
	}
	if found, _ := h.RunCommand(context.Background(), "nope", ""); found {
		t.Fatal("an unknown command was found")
	}
}

func TestHangingExtensionTimesOutAndBlocks(t *testing.T) {
	h, log := fakeHost(t, "hang", Config{CallTimeout: 50 * time.Millisecond})
	out := h.ToolCall(context.Background(), "bash", "c1", json.RawMessage(`{"command":"ls"}`))
	if !out.Block || !strings.Contains(out.Reason, "did not answer") {
		t.Fatalf("a hanging gate must block: %+v", out)
	}
	if !strings.Contains(log.text(), "tool_call: event after 50ms: extension did not answer in time") {
		t.Fatalf("errors: %q", log.text())
	}
	// A hanging tool ends with the run's context.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Tools(context.Background())[0].Execute(ctx, loop.ToolCall{ID: "t", Name: "slow", Args: json.RawMessage(`{}`)}, func(loop.ToolResult) {})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled tool: %v", err)
	}
}

func TestCrashingExtensionFailsItsCalls(t *testing.T) {
	h, log := fakeHost(t, "crash", Config{})
	if in := h.Input(context.Background(), "hello", nil, "interactive", ""); in.Action != "continue" {
		t.Fatalf("input after a crash: %+v", in)
	}
	if !strings.Contains(log.text(), "crashing on purpose") {
		t.Fatalf("the crash's stderr is not reported: %q", log.text())
	}
	// The process is gone: later calls do nothing and wait for nothing.
	if out := h.ToolCall(context.Background(), "bash", "c", json.RawMessage(`{}`)); out.Block {
		t.Fatalf("a dead extension has no handlers: %+v", out)
	}
}

func TestSilentExtensionDoesNotHoldTheStart(t *testing.T) {
	h, log := fakeHost(t, "silent", Config{StartTimeout: 100 * time.Millisecond})
	if tools := h.Tools(context.Background()); len(tools) != 0 {
		t.Fatalf("tools: %v", tools)
	}
	if !strings.Contains(log.text(), "no registration") {
		t.Fatalf("errors: %q", log.text())
	}
}

func TestCloseDuringTheStartDoesNotWaitForIt(t *testing.T) {
	h, log := fakeHost(t, "silent", Config{}) // the default start timeout is a minute
	done := make(chan struct{})
	go func() { h.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for a start that never ends")
	}
	if log.text() != "" {
		t.Fatalf("closing is not the extension's failure: %s", log.text())
	}
}

// Close delivers shutdown after whatever was queued before it, so the extension sees it (pi's
// session_shutdown) rather than only the end of its input.
func TestCloseSendsShutdownAfterQueuedLines(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "shutdown")
	t.Setenv("PI_GO_FAKE_SHUTDOWN", mark)
	h, _ := fakeHost(t, "ok", Config{})
	if err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		h.Notify("turn_end", map[string]any{"type": "turn_end", "turnIndex": i})
	}
	h.Close()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the extension never saw shutdown: %v", err)
	}
}

// A child that stops reading its input holds neither the events sent to it nor Close.
func TestDeafExtensionBlocksNothing(t *testing.T) {
	h, _ := fakeHost(t, "deaf", Config{})
	if err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		payload := map[string]any{"type": "turn_end", "text": strings.Repeat("x", 4096)}
		for range 1000 { // far more than a pipe holds
			h.Notify("turn_end", payload)
		}
		h.Close()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		killGroup(h.procs[0].cmd) // lets the blocked goroutine and the cleanup's Close end
		t.Fatal("sending to an extension that does not read blocked the host")
	}
}
