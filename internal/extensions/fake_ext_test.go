package extensions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a protocol extension: TestMain runs fakeExtension instead of the tests
// when PI_GO_FAKE_EXTENSION names a behaviour, so process tests need no compiler and no Node.
func TestMain(m *testing.M) {
	if name := filepath.Base(os.Args[0]); strings.HasPrefix(name, "fake-trust-") {
		fakeTrustExtension(name) // trust_test.go: the behaviour is in the link's name
		os.Exit(0)
	}
	if mode := os.Getenv("PI_GO_FAKE_EXTENSION"); mode == "provider" {
		fakeProviderExtension() // provider_test.go
		os.Exit(0)
	} else if mode == "markdown" {
		fakeMarkdownExtension() // markdown_test.go
		os.Exit(0)
	} else if mode != "" {
		fakeExtension(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeExtension: "ok" registers a tool, a command and tool_call/input handlers; "hang" registers and
// then never answers; "crash" exits on its first event; "silent" never registers; "deaf" registers
// and then stops reading its input. On shutdown it creates the file PI_GO_FAKE_SHUTDOWN names.
func fakeExtension(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	if !in.Scan() { // init
		return
	}
	var init map[string]any
	_ = json.Unmarshal(in.Bytes(), &init)
	if mode == "silent" {
		for in.Scan() {
		}
		return
	}
	send(map[string]any{"type": "register", "protocol": 1, "name": "fake",
		"events": []string{"tool_call", "input", "turn_end"},
		"tools": []any{map[string]any{"name": "slow", "description": "counts", "parameters": map[string]any{
			"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}}}},
		"commands": []any{map[string]any{"name": "ask", "description": "asks"}},
		"flags":    []any{map[string]any{"name": "fake-flag", "type": "string"}},
	})
	if mode == "deaf" {
		time.Sleep(time.Hour) // killed with its process group when the host closes
	}
	nextReq := 0
	for in.Scan() {
		var m map[string]any
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		id := m["id"]
		switch m["type"] {
		case "event":
			ev, _ := m["event"].(map[string]any)
			switch {
			case mode == "crash":
				fmt.Fprintln(os.Stderr, "fake: crashing on purpose")
				os.Exit(3)
			case mode == "hang" || id == nil:
				// never answers; notifications have nothing to answer
			case ev["type"] == "tool_call":
				input, _ := ev["input"].(map[string]any)
				cmd, _ := input["command"].(string)
				switch {
				case strings.Contains(cmd, "rm -rf"):
					send(map[string]any{"type": "result", "id": id, "result": map[string]any{"block": true, "reason": "no rm", "terminate": true}})
				case cmd != "":
					send(map[string]any{"type": "result", "id": id, "result": map[string]any{"input": map[string]any{"command": cmd + " --safe"}}})
				default:
					send(map[string]any{"type": "result", "id": id, "result": nil})
				}
			case ev["type"] == "input":
				text, _ := ev["text"].(string)
				result := map[string]any{"action": "continue"}
				if strings.HasPrefix(text, "shout ") {
					result = map[string]any{"action": "transform", "text": strings.ToUpper(strings.TrimPrefix(text, "shout "))}
				}
				send(map[string]any{"type": "result", "id": id, "result": result})
			default:
				send(map[string]any{"type": "result", "id": id, "result": nil})
			}
		case "execute_tool":
			if mode == "hang" {
				continue
			}
			for i := 1; i <= 3; i++ {
				send(map[string]any{"type": "tool_update", "id": id, "partial": map[string]any{
					"content": []any{map[string]any{"type": "text", "text": fmt.Sprint("step ", i)}}}})
			}
			send(map[string]any{"type": "result", "id": id, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "done"}}, "details": map[string]any{"steps": 3}}})
		case "run_command":
			nextReq++
			rid := fmt.Sprint("r", nextReq)
			send(map[string]any{"type": "request", "id": rid, "method": "ui", "params": map[string]any{
				"method": "confirm", "title": "Sure?", "message": m["commandArgs"]}})
			// Wait for the answer (lines in between are dropped: this fake runs one thing at a time).
			for in.Scan() {
				var r map[string]any
				if json.Unmarshal(in.Bytes(), &r) == nil && r["type"] == "response" && r["id"] == rid {
					res, _ := r["result"].(map[string]any)
					send(map[string]any{"type": "request", "method": "ui", "params": map[string]any{
						"method": "notify", "message": fmt.Sprint("confirmed=", res["confirmed"])}})
					break
				}
			}
			send(map[string]any{"type": "result", "id": id, "result": nil})
		case "cancel":
			// "hang" tools end when cancelled: answer the cancelled call with an error.
			send(map[string]any{"type": "result", "id": id, "error": "aborted"})
		case "shutdown":
			if mark := os.Getenv("PI_GO_FAKE_SHUTDOWN"); mark != "" {
				_ = os.WriteFile(mark, nil, 0o644)
			}
			return
		}
	}
}
