package extensions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A second fake protocol extension (version 2): the test binary runs it instead of the tests when
// PI_GO_FAKE_SESSION is set. Right after registering it sends 100 requests without an id, numbered;
// it answers user_bash by streaming "a" and "b" and then its own result, and turn_end by adding a
// custom entry to the proposal and asking to continue.
func init() {
	if os.Getenv("PI_GO_FAKE_SESSION") == "" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	if !in.Scan() { // init
		os.Exit(0)
	}
	send(map[string]any{"type": "register", "protocol": 2, "name": "fake-session", "events": []string{"user_bash", "turn_end"}})
	for i := range 100 {
		send(map[string]any{"type": "request", "method": "seq", "params": map[string]any{"n": i}})
	}
	for in.Scan() {
		var m struct {
			Type  string          `json:"type"`
			ID    json.RawMessage `json:"id"`
			Event struct {
				Type    string            `json:"type"`
				Entries []json.RawMessage `json:"entries"`
			} `json:"event"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.Type != "event" || m.ID == nil {
			continue
		}
		switch m.Event.Type {
		case "user_bash":
			send(map[string]any{"type": "tool_update", "id": m.ID, "partial": map[string]any{"output": "a"}})
			send(map[string]any{"type": "tool_update", "id": m.ID, "partial": map[string]any{"output": "b"}})
			send(map[string]any{"type": "result", "id": m.ID, "result": map[string]any{"result": map[string]any{
				"output": "ab", "exitCode": 0, "cancelled": false, "truncated": false}}})
		case "turn_end":
			entries := append(m.Event.Entries, json.RawMessage(fmt.Sprintf(`{"type":"custom","customType":"seen","data":%d}`, len(m.Event.Entries))))
			send(map[string]any{"type": "result", "id": m.ID, "result": map[string]any{"entries": entries, "continue": true}})
		default:
			send(map[string]any{"type": "result", "id": m.ID, "result": nil})
		}
	}
	os.Exit(0)
}

func sessionFakeHost(t *testing.T, handler RequestHandler, withV1 bool) *Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PI_GO_FAKE_SESSION", "1")
	var exes []string
	if withV1 {
		// A version-1 extension (the "ok" fake) subscribed to turn_end, loaded first.
		v1 := filepath.Join(t.TempDir(), "v1")
		script := fmt.Sprintf("#!/bin/sh\nexec env -u PI_GO_FAKE_SESSION PI_GO_FAKE_EXTENSION=ok %q \"$@\"\n", exe)
		if err := os.WriteFile(v1, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		exes = append(exes, v1)
	}
	log := &errorLog{}
	h := New(Config{Executables: append(exes, exe), Cwd: t.TempDir(), OnError: log.add})
	h.SetHandler(handler)
	h.Start()
	t.Cleanup(func() {
		h.Close()
		if text := log.text(); text != "" {
			t.Errorf("extension errors:\n%s", text)
		}
	})
	return h
}

// Requests without an id reach the handler one after the other, in the order they were written.
func TestRequestsWithoutIDKeepTheirOrder(t *testing.T) {
	got := make(chan int, 100)
	h := sessionFakeHost(t, func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		var p struct{ N int }
		if err := json.Unmarshal(params, &p); err != nil || method != "seq" {
			return nil, fmt.Errorf("unexpected %s %s", method, params)
		}
		got <- p.N
		return nil, nil
	}, false)
	h.Start()
	deadline := time.After(60 * time.Second)
	for want := range 100 {
		select {
		case n := <-got:
			if n != want {
				t.Fatalf("request %d arrived as number %d", n, want)
			}
		case <-deadline:
			t.Fatalf("only %d requests arrived", want)
		}
	}
}

func ignoreRequests(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}

// user_bash: the extension's output streams to the caller before its result.
func TestUserBashStreamsTheExtensionsOutput(t *testing.T) {
	h := sessionFakeHost(t, ignoreRequests, false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var streamed string
	res, err := h.UserBash(ctx, "remote ls", false, "/tmp", func(s string) { streamed += s })
	if err != nil || res == nil {
		t.Fatalf("UserBash: %v %v", res, err)
	}
	if streamed != "ab" || res.Output != "ab" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("streamed %q, result %+v", streamed, res)
	}
}

// turn_end: a version-2 process answers with the proposal it extends; a version-1 process before it
// only observes (its fake answers nothing to an event without an id).
func TestBoundaryChainsVersion2Processes(t *testing.T) {
	h := sessionFakeHost(t, ignoreRequests, true)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	r := h.Boundary(ctx, "turn_end", map[string]any{"turnIndex": 0, "outcome": "completed"})
	if !r.Continue || len(r.Entries) != 1 || string(r.Entries[0]) != `{"type":"custom","customType":"seen","data":0}` {
		t.Fatalf("boundary: %+v (%s)", r, r.Entries)
	}
}
