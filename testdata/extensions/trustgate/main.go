// Command trustgate is a pi-go extension in Go that decides project trust (pi 1.6's project_trust),
// as an example of the event for extensions that are not TypeScript. Its answer comes from the
// environment: TRUSTGATE_DECISION is yes, no or undecided (the default); "ask" asks the user with
// ctx.ui.confirm and answers yes or no; "hang" never answers. TRUSTGATE_REMEMBER=1 asks pi-go to
// save a yes or no in trust.json. Each event it gets is appended to the file TRUSTGATE_LOG, when
// set, as "<its file name> <event> <mode> <hasUI>".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

type message struct {
	Type   string          `json:"type"`
	ID     json.RawMessage `json:"id,omitempty"`
	Event  json.RawMessage `json:"event,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

var out = json.NewEncoder(os.Stdout)

func send(v any) {
	if err := out.Encode(v); err != nil {
		os.Exit(1) // pi-go has gone
	}
}

func logLine(format string, args ...any) {
	path := os.Getenv("TRUSTGATE_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, filepath.Base(os.Args[0])+" "+format+"\n", args...)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	// confirming is the id of the project_trust event waiting for the user's answer ("" for none).
	var confirming json.RawMessage
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch m.Type {
		case "init":
			send(map[string]any{"type": "register", "protocol": 2, "name": "trustgate",
				"events": []string{"project_trust", "session_start"}})
		case "event":
			var ev struct {
				Type  string `json:"type"`
				Cwd   string `json:"cwd"`
				Mode  string `json:"mode"`
				HasUI bool   `json:"hasUI"`
			}
			_ = json.Unmarshal(m.Event, &ev)
			if ev.Type != "project_trust" {
				logLine("%s", ev.Type)
				if len(m.ID) > 0 {
					send(map[string]any{"type": "result", "id": m.ID, "result": nil})
				}
				continue
			}
			logLine("project_trust %s %v", ev.Mode, ev.HasUI)
			decision := os.Getenv("TRUSTGATE_DECISION")
			switch decision {
			case "hang":
				continue
			case "ask":
				confirming = m.ID
				send(map[string]any{"type": "request", "id": "confirm", "method": "ui", "params": map[string]any{
					"method": "confirm", "title": "trustgate: trust this project?", "message": ev.Cwd}})
				continue
			case "":
				decision = "undecided"
			}
			answer(m.ID, decision)
		case "response":
			var r struct {
				Confirmed bool `json:"confirmed"`
			}
			_ = json.Unmarshal(m.Result, &r)
			decision := "no"
			if r.Confirmed {
				decision = "yes"
			}
			answer(confirming, decision)
		case "shutdown":
			return
		}
	}
}

func answer(id json.RawMessage, decision string) {
	send(map[string]any{"type": "result", "id": id, "result": map[string]any{
		"trusted": decision, "remember": os.Getenv("TRUSTGATE_REMEMBER") == "1"}})
}
