package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// runPrompt prompts and waits until the session is idle again (agent_settled), as pi 1.6's
// RpcClient.promptAndWait does.
func runPrompt(t *testing.T, c *client, text string) {
	t.Helper()
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": text})
	c.waitEvent(from, "agent_settled")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestStateMessagesAndStatsAgreeWithTheSessionFile(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})

	st := c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["messageCount"] != 0.0 || st["isStreaming"] != false || st["model"].(map[string]any)["id"] != "mock-model" {
		t.Errorf("initial state: %v", st)
	}
	if r := c.call(map[string]any{"type": "get_last_assistant_text"}); !strings.HasSuffix(r.raw, `"data":{}}`) {
		t.Errorf("no assistant text yet: %s", r.raw)
	}

	tool := openaitest.ToolCallReply("mock-model", "Let me look.",
		openaitest.ToolCallSpec{ID: "call_1", Name: "bash", Arguments: `{"command":"echo 42"}`})
	f.srv.Enqueue(tool, openaitest.TextReply("mock-model", "  The answer is 42.  "))
	runPrompt(t, c, "what is the answer?")
	c.ok(map[string]any{"type": "set_session_name", "name": "  answers  "})

	path := f.sess.Store().SessionFile()
	entries := fileEntries(t, path)
	header := entries[0]
	st = c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	fileMsgs := fileMessages(t, path)
	if st["sessionFile"] != path || st["sessionId"] != header["id"] || st["sessionName"] != "answers" ||
		st["messageCount"] != float64(len(fileMsgs)) || st["pendingMessageCount"] != 0.0 ||
		st["thinkingLevel"] != "off" || st["steeringMode"] != "one-at-a-time" || st["autoCompactionEnabled"] != true {
		t.Errorf("state %v\nheader %v, %d messages", st, header, len(fileMsgs))
	}
	var names []any
	for _, e := range entries {
		if e["type"] == "session_info" {
			names = append(names, e["name"])
		}
	}
	if len(names) != 1 || names[0] != "answers" {
		t.Errorf("session_info entries: %v", names)
	}
	if _, ev := c.waitEvent(0, "session_info_changed"); ev.raw != `{"type":"session_info_changed","name":"answers"}` {
		t.Errorf("event: %s", ev.raw)
	}

	msgs := c.ok(map[string]any{"type": "get_messages"}).(map[string]any)["messages"].([]any)
	if len(msgs) != len(fileMsgs) {
		t.Fatalf("get_messages has %d messages, the file %d", len(msgs), len(fileMsgs))
	}
	for i := range msgs {
		if jsonOf(t, msgs[i]) != jsonOf(t, fileMsgs[i]) {
			t.Errorf("message %d:\n rpc  %s\n file %s", i, jsonOf(t, msgs[i]), jsonOf(t, fileMsgs[i]))
		}
	}

	stats := c.ok(map[string]any{"type": "get_session_stats"}).(map[string]any)
	var users, assistants, calls, results, input, output float64
	for _, m := range fileMsgs {
		switch m["role"] {
		case "user":
			users++
		case "toolResult":
			results++
		case "assistant":
			assistants++
			for _, b := range m["content"].([]any) {
				if b.(map[string]any)["type"] == "toolCall" {
					calls++
				}
			}
			u := m["usage"].(map[string]any)
			input += u["input"].(float64)
			output += u["output"].(float64)
		}
	}
	tokens := stats["tokens"].(map[string]any)
	if stats["sessionFile"] != path || stats["sessionId"] != header["id"] || stats["userMessages"] != users ||
		stats["assistantMessages"] != assistants || stats["toolCalls"] != calls || stats["toolResults"] != results ||
		stats["totalMessages"] != float64(len(fileMsgs)) || tokens["input"] != input || tokens["output"] != output ||
		tokens["total"] != input+output || users != 1 || calls != 1 {
		t.Errorf("stats %v", stats)
	}
	if r := c.call(map[string]any{"type": "get_last_assistant_text"}); !strings.HasSuffix(r.raw, `"data":{"text":"The answer is 42."}}`) {
		t.Errorf("last assistant text: %s", r.raw)
	}
	fork := c.ok(map[string]any{"type": "get_fork_messages"}).(map[string]any)["messages"].([]any)
	if len(fork) != 1 || fork[0].(map[string]any)["text"] != "what is the answer?" {
		t.Errorf("fork messages: %v", fork)
	}
}

func TestSessionRoundTrips(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	f.srv.SetFallback(openaitest.TextReply("mock-model", "noted"))

	runPrompt(t, c, "first")
	runPrompt(t, c, "second")
	file1 := f.sess.Store().SessionFile()
	msgs1 := jsonOf(t, c.ok(map[string]any{"type": "get_messages"}))

	// new_session: empty, another file.
	if r := c.call(map[string]any{"type": "new_session"}); !strings.HasSuffix(r.raw, `"data":{"cancelled":false}}`) {
		t.Fatalf("new_session: %s", r.raw)
	}
	st := c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["messageCount"] != 0.0 || st["sessionFile"] == file1 {
		t.Errorf("after new_session: %v", st)
	}
	runPrompt(t, c, "other session")
	file2 := f.sess.Store().SessionFile()

	// switch_session back: the first transcript again, from its file.
	if r := c.call(map[string]any{"type": "switch_session", "sessionPath": file1}); !strings.HasSuffix(r.raw, `"data":{"cancelled":false}}`) {
		t.Fatalf("switch_session: %s", r.raw)
	}
	if got := jsonOf(t, c.ok(map[string]any{"type": "get_messages"})); got != msgs1 {
		t.Errorf("after switch:\n%s\nwant\n%s", got, msgs1)
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["sessionFile"] != file1 {
		t.Errorf("session file after switch: %v", st["sessionFile"])
	}

	// fork at the second prompt: a new file holding what came before it; the text comes back.
	forkable := c.ok(map[string]any{"type": "get_fork_messages"}).(map[string]any)["messages"].([]any)
	if len(forkable) != 2 {
		t.Fatalf("fork messages: %v", forkable)
	}
	second := forkable[1].(map[string]any)
	r := c.call(map[string]any{"type": "fork", "entryId": second["entryId"]})
	if r.obj["success"] != true || jsonOf(t, r.obj["data"]) != `{"cancelled":false,"text":"second"}` || !strings.Contains(r.raw, `"data":{"text":"second","cancelled":false}`) {
		t.Fatalf("fork: %s", r.raw)
	}
	st = c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	file3, _ := st["sessionFile"].(string)
	if file3 == file1 || file3 == file2 || st["messageCount"] != 3.0 { // system, first, its answer
		t.Errorf("after fork: %v", st)
	}
	runPrompt(t, c, "second, edited")
	var texts []string
	for _, m := range fileMessages(t, file3) {
		if m["role"] == "user" {
			texts = append(texts, m["content"].([]any)[0].(map[string]any)["text"].(string))
		}
	}
	if strings.Join(texts, "|") != "first|second, edited" {
		t.Errorf("forked file users: %v", texts)
	}
	// The original is untouched.
	if got := len(fileMessages(t, file1)); got != 5 {
		t.Errorf("original file has %d messages", got)
	}

	// clone: the same branch in a new file.
	before := jsonOf(t, c.ok(map[string]any{"type": "get_messages"}))
	if r := c.call(map[string]any{"type": "clone"}); !strings.HasSuffix(r.raw, `"data":{"cancelled":false}}`) {
		t.Fatalf("clone: %s", r.raw)
	}
	st = c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["sessionFile"] == file3 || jsonOf(t, c.ok(map[string]any{"type": "get_messages"})) != before {
		t.Errorf("after clone: %v", st)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(file1), "*.jsonl"))
	if len(files) != 4 {
		t.Errorf("session files: %v", files)
	}

	// A path that cannot be a session file is refused and changes nothing.
	r = c.call(map[string]any{"type": "switch_session", "sessionPath": t.TempDir()})
	if r.obj["success"] != false || r.str("error") == "" {
		t.Errorf("switch to a directory: %s", r.raw)
	}
	if got := jsonOf(t, c.ok(map[string]any{"type": "get_messages"})); got != before {
		t.Errorf("a failed switch changed the transcript")
	}
	// As in pi, a path with no file yet opens an empty session that will be written there.
	missing := filepath.Join(t.TempDir(), "new.jsonl")
	c.ok(map[string]any{"type": "switch_session", "sessionPath": missing})
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["sessionFile"] != missing || st["messageCount"] != 0.0 {
		t.Errorf("switch to a new path: %v", st)
	}
}

func TestModelThinkingAndSettingsCommands(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})

	models := c.ok(map[string]any{"type": "get_available_models"}).(map[string]any)["models"].([]any)
	if len(models) != 2 {
		t.Fatalf("models: %v", models)
	}
	for _, m := range models {
		m := m.(map[string]any)
		if m["provider"] != "mock" || m["contextWindow"].(float64) <= 0 {
			t.Errorf("model: %v", m)
		}
		if _, ok := m["reasoning"].(bool); !ok {
			t.Errorf("reasoning is not a boolean: %v", m)
		}
	}
	// The mock model has no reasoning: cycling thinking levels answers null.
	if r := c.call(map[string]any{"type": "cycle_thinking_level"}); !strings.HasSuffix(r.raw, `"success":true,"data":null}`) {
		t.Errorf("cycle_thinking_level without reasoning: %s", r.raw)
	}
	model := c.ok(map[string]any{"type": "set_model", "provider": "mock", "modelId": "thinker"}).(map[string]any)
	if model["id"] != "thinker" || model["reasoning"] != true {
		t.Errorf("set_model: %v", model)
	}
	from := c.count()
	id := c.send(map[string]any{"type": "set_thinking_level", "level": "high"})
	at, _ := c.waitFor(from, func(r record) bool { return r.isResponse(id) })
	if got := eventKinds(c.records()[from : at+1]); strings.Join(got, ",") != "thinking_level_changed,response "+id+" set_thinking_level success=true <nil>" {
		t.Errorf("set_thinking_level: %v", got)
	}
	st := c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["thinkingLevel"] != "high" || st["model"].(map[string]any)["id"] != "thinker" {
		t.Errorf("state: %v", st)
	}
	level := c.ok(map[string]any{"type": "cycle_thinking_level"}).(map[string]any)["level"]
	if level == "high" || level == nil {
		t.Errorf("cycle_thinking_level: %v", level)
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["thinkingLevel"] != level {
		t.Errorf("get_state after cycling: %v", st["thinkingLevel"])
	}
	cycled := c.ok(map[string]any{"type": "cycle_model"}).(map[string]any)
	if cycled["model"].(map[string]any)["id"] != "mock-model" || cycled["isScoped"] != false || cycled["thinkingLevel"] != "off" {
		t.Errorf("cycle_model: %v", cycled)
	}

	c.ok(map[string]any{"type": "set_steering_mode", "mode": "all"})
	c.ok(map[string]any{"type": "set_follow_up_mode", "mode": "all"})
	c.ok(map[string]any{"type": "set_auto_compaction", "enabled": false})
	c.ok(map[string]any{"type": "set_auto_retry", "enabled": false})
	c.ok(map[string]any{"type": "abort_retry"})
	st = c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["steeringMode"] != "all" || st["followUpMode"] != "all" || st["autoCompactionEnabled"] != false {
		t.Errorf("state: %v", st)
	}
	data, err := os.ReadFile(filepath.Join(f.agentDir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]any
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	// Queue modes and the switches are saved; model and thinking changes are not (pi 1.6).
	if settings["steeringMode"] != "all" || settings["followUpMode"] != "all" ||
		settings["compaction"].(map[string]any)["enabled"] != false || settings["retry"].(map[string]any)["enabled"] != false ||
		settings["defaultProvider"] != nil || settings["defaultModel"] != nil || settings["defaultThinkingLevel"] != nil {
		t.Errorf("settings.json: %s", data)
	}
	if r := c.call(map[string]any{"type": "get_commands"}); !strings.HasSuffix(r.raw, `"data":{"commands":[]}}`) {
		t.Errorf("get_commands: %s", r.raw)
	}
}
