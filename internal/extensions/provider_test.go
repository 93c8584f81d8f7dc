package extensions

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// fakeProviderExtension registers the provider "fake" with its own stream function (a process
// extension in any language can), answers stream_provider with a text and a tool call, streams
// "part" and waits for the cancel when asked to be slow, and unregisters the provider on /drop.
func fakeProviderExtension() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	if !in.Scan() {
		return
	}
	send(map[string]any{"type": "request", "method": "registerProvider", "params": map[string]any{
		"name": "fake", "streamSimple": true, "config": map[string]any{
			"api": "fake-api", "baseUrl": "http://127.0.0.1:9", "apiKey": "k",
			"models": []any{map[string]any{"id": "f1", "name": "Fake 1", "input": []string{"text"}}}}}})
	send(map[string]any{"type": "register", "protocol": 2, "name": "fake-provider",
		"commands": []any{map[string]any{"name": "drop"}}})
	update := func(id any, ev map[string]any) {
		send(map[string]any{"type": "stream_update", "id": id, "partial": ev})
	}
	for in.Scan() {
		var m map[string]any
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		id := m["id"]
		switch m["type"] {
		case "stream_provider":
			c, _ := m["context"].(map[string]any)
			msgs, _ := c["messages"].([]any)
			last, _ := msgs[len(msgs)-1].(map[string]any)
			update(id, map[string]any{"type": "start"})
			update(id, map[string]any{"type": "text_start", "contentIndex": 0, "block": map[string]any{"type": "text", "text": ""}})
			if raw, _ := json.Marshal(last["content"]); strings.Contains(string(raw), "slow") {
				update(id, map[string]any{"type": "text_delta", "contentIndex": 0, "delta": "part"})
				continue // the cancel answers it
			}
			update(id, map[string]any{"type": "text_delta", "contentIndex": 0, "delta": "hello "})
			update(id, map[string]any{"type": "text_delta", "contentIndex": 0, "delta": "world"})
			update(id, map[string]any{"type": "text_end", "contentIndex": 0, "content": "hello world"})
			update(id, map[string]any{"type": "toolcall_start", "contentIndex": 1, "block": map[string]any{"type": "toolCall", "id": "c1", "name": "read"}})
			update(id, map[string]any{"type": "toolcall_delta", "contentIndex": 1, "delta": `{"path":`})
			update(id, map[string]any{"type": "toolcall_delta", "contentIndex": 1, "delta": `"a.txt"}`})
			update(id, map[string]any{"type": "toolcall_end", "contentIndex": 1, "toolCall": map[string]any{
				"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": "a.txt"}}})
			send(map[string]any{"type": "result", "id": id, "result": map[string]any{
				"role": "assistant", "stopReason": "toolUse", "api": "fake-api", "provider": "fake", "model": "f1",
				"usage": map[string]any{"input": 7, "output": 3, "totalTokens": 10}, "content": []any{}}})
		case "run_command":
			send(map[string]any{"type": "request", "method": "unregisterProvider", "params": map[string]any{"name": "fake"}})
			send(map[string]any{"type": "result", "id": id, "result": nil})
		case "cancel":
			send(map[string]any{"type": "result", "id": id, "error": "aborted"})
		case "shutdown":
			return
		}
	}
}

func TestProviderRegisteredWhileLoadingStreamsThroughTheExtension(t *testing.T) {
	changes := make(chan ProviderChange, 4)
	h, log := fakeHost(t, "provider", Config{OnProvider: func(c ProviderChange) error { changes <- c; return nil }})
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// Registered while loading: applied before the start ended.
	var reg ProviderChange
	select {
	case reg = <-changes:
	default:
		t.Fatal("the provider registered while loading was not applied when the start ended")
	}
	if reg.Name != "fake" || !reg.StreamSimple || reg.Stream == nil || !strings.Contains(string(reg.Config), `"fake-api"`) {
		t.Fatalf("registration: %+v %s", reg, reg.Config)
	}

	model := &provider.Model{ID: "f1", Provider: "fake", API: "fake-api"}
	req := &provider.Request{Model: model, SystemPrompt: "be brief", Messages: []provider.Message{provider.NewUserMessage("hi")}}
	var types []string
	final := reg.Stream.Stream(ctx, req, func(e *provider.AssistantEvent) { types = append(types, string(e.Type)) })
	want := "start text_start text_delta text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if final.StopReason != provider.StopReasonToolUse || len(final.Content) != 2 || final.Content[0].Text != "hello world" ||
		final.Content[1].Name != "read" || string(final.Content[1].Arguments) != `{"path":"a.txt"}` || final.Usage.Input != 7 {
		t.Fatalf("final: %+v", final)
	}

	// Cancelling the request cancels the call: the answer ends aborted with what had come.
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	req.Messages = []provider.Message{provider.NewUserMessage("slow")}
	final = reg.Stream.Stream(actx, req, func(e *provider.AssistantEvent) {
		if e.Type == provider.EventTextDelta {
			cancel()
		}
	})
	if final.StopReason != provider.StopReasonAborted || final.Content[0].Text != "part" {
		t.Fatalf("aborted: %+v", final)
	}

	// unregisterProvider from a command.
	if found, err := h.RunCommand(ctx, "drop", ""); !found || err != nil {
		t.Fatalf("drop: %v %v", found, err)
	}
	select {
	case c := <-changes:
		if c.Name != "fake" || c.Config != nil {
			t.Fatalf("unregister: %+v", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no unregistration")
	}
	if log.text() != "" {
		t.Fatalf("errors: %s", log.text())
	}
}

func TestStreamOfAnExitedExtensionIsAProviderError(t *testing.T) {
	changes := make(chan ProviderChange, 4)
	h, _ := fakeHost(t, "provider", Config{OnProvider: func(c ProviderChange) error { changes <- c; return nil }})
	if err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg := <-changes
	h.Close()
	model := &provider.Model{ID: "f1", Provider: "fake", API: "fake-api"}
	final := reg.Stream.Stream(context.Background(), &provider.Request{Model: model}, nil)
	if final.StopReason != provider.StopReasonError || !strings.Contains(final.ErrorMessage, "extension process exited") {
		t.Fatalf("final: %+v", final)
	}
}
