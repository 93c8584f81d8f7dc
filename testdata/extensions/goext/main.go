// Command goext is a pi-go extension written in Go with the standard library only: it speaks the
// JSON-lines protocol of docs/extension-protocol.md on stdin and stdout. It registers the tool
// word_count, blocks bash commands that contain "rm -rf", and adds the command /stamp, which writes a
// custom entry into the session and says so.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

type message struct {
	Type        string          `json:"type"`
	ID          json.RawMessage `json:"id,omitempty"`
	Event       json.RawMessage `json:"event,omitempty"`
	Name        string          `json:"name,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"`
	CommandArgs string          `json:"commandArgs,omitempty"`
}

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

func send(v any) {
	outMu.Lock()
	defer outMu.Unlock()
	if err := out.Encode(v); err != nil {
		os.Exit(1) // pi-go has gone
	}
}

func text(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "goext: bad line:", err)
			continue
		}
		switch m.Type {
		case "init":
			send(map[string]any{
				"type": "register", "protocol": 1, "name": "goext",
				"events": []string{"tool_call"},
				"tools": []any{map[string]any{
					"name": "word_count", "label": "Word count", "description": "Counts the words of a text.",
					"parameters": map[string]any{"type": "object", "required": []string{"text"},
						"properties": map[string]any{"text": map[string]any{"type": "string"}}},
				}},
				"commands": []any{map[string]any{"name": "stamp", "description": "Stamp the session"}},
			})
		case "event":
			if len(m.ID) == 0 {
				continue // a notification: nothing to answer
			}
			var ev struct {
				Type     string `json:"type"`
				ToolName string `json:"toolName"`
				Input    struct {
					Command string `json:"command"`
				} `json:"input"`
			}
			_ = json.Unmarshal(m.Event, &ev)
			var result any
			if ev.Type == "tool_call" && ev.ToolName == "bash" && strings.Contains(ev.Input.Command, "rm -rf") {
				result = map[string]any{"block": true, "reason": "goext: rm -rf is not allowed"}
			}
			send(map[string]any{"type": "result", "id": m.ID, "result": result})
		case "execute_tool":
			var args struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Args, &args)
			n := len(strings.Fields(args.Text))
			send(map[string]any{"type": "result", "id": m.ID, "result": map[string]any{
				"content": text(fmt.Sprintf("%d words", n)), "details": map[string]any{"words": n}}})
		case "run_command":
			send(map[string]any{"type": "request", "method": "appendEntry",
				"params": map[string]any{"customType": "goext-stamp", "data": map[string]any{"note": m.CommandArgs}}})
			send(map[string]any{"type": "request", "method": "ui",
				"params": map[string]any{"method": "notify", "message": "stamped: " + m.CommandArgs, "notifyType": "info"}})
			send(map[string]any{"type": "result", "id": m.ID, "result": nil})
		case "shutdown":
			return
		}
	}
}
