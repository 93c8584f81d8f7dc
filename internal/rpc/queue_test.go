package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// requestRoles lists the roles of a recorded chat request's messages, with the text of user messages.
func requestRoles(t *testing.T, req *openaitest.Request) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := req.Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range body.Messages {
		if m.Role != "user" {
			out = append(out, m.Role)
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		out = append(out, "user:"+text)
	}
	return out
}

// toolCallAnswer streams some text and then a bash call, one gated event at a time.
func toolCallAnswer(command string) (openaitest.Response, chan struct{}) {
	args, _ := json.Marshal(map[string]string{"command": command})
	resp := openaitest.ToolCallReply("mock-model", "Starting a slow answer.",
		openaitest.ToolCallSpec{ID: "call_1", Name: "bash", Arguments: string(args)})
	gate := make(chan struct{})
	resp.Gate = gate
	return resp, gate
}

func TestSteerWhileStreamingArrivesAfterToolResults(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	first, gate := toolCallAnswer("echo step1-done")
	f.srv.Enqueue(first, openaitest.TextReply("mock-model", "Short, as asked."))
	c := startClient(t, f.sess, ServeOptions{})

	c.ok(map[string]any{"type": "prompt", "message": "write a long essay, then run a command"})
	release(t, gate, 2) // the role chunk and the text
	c.waitFor(0, func(r record) bool {
		ae, _ := r.obj["assistantMessageEvent"].(map[string]any)
		return ae != nil && ae["type"] == "text_delta"
	})
	from := c.count()
	id := c.send(map[string]any{"type": "steer", "message": "STEER: please keep it short"})
	respAt, _ := c.waitFor(from, func(r record) bool { return r.isResponse(id) })
	// As in pi's exchange: the queue_update comes first, then the steer's response.
	if got := eventKinds(c.records()[from : respAt+1]); strings.Join(got, ",") != "queue_update,response "+id+" steer success=true <nil>" {
		t.Errorf("steer answered with %v", got)
	}
	if q := c.records()[from]; q.raw != `{"type":"queue_update","steering":["STEER: please keep it short"],"followUp":[]}` {
		t.Errorf("queue_update: %s", q.raw)
	}
	close(gate)
	endAt, _ := c.waitEvent(respAt, "agent_end")

	got := strings.Join(eventKinds(c.records()[respAt+1:endAt+1]), "\n")
	want := strings.Join([]string{
		"message_update(assistant) toolcall_start", "message_update(assistant) toolcall_delta",
		"message_update(assistant) text_end", "message_update(assistant) toolcall_end",
		"message_end(assistant)",
		"tool_execution_start", "tool_execution_update", "tool_execution_end",
		"message_start(toolResult)", "message_end(toolResult)", "turn_end(assistant)",
		"turn_start", "queue_update", "message_start(user)", "message_end(user)",
		"message_start(assistant)", "message_update(assistant) text_start", "message_update(assistant) text_delta",
		"message_update(assistant) text_end", "message_end(assistant)", "turn_end(assistant)", "agent_end",
	}, "\n")
	if got != want {
		t.Errorf("events after the steer:\n%s\nwant:\n%s", got, want)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	roles := strings.Join(requestRoles(t, reqs[1]), " | ")
	if !strings.HasSuffix(roles, "assistant | tool | user:STEER: please keep it short") {
		t.Errorf("second request: %s", roles)
	}
	if n := f.sess.PendingMessageCount(); n != 0 {
		t.Errorf("pending after delivery: %d", n)
	}
}

func TestFollowUpWaitsUntilTheRunWouldStop(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	first, gate := toolCallAnswer("echo tool-ran")
	f.srv.Enqueue(first,
		openaitest.TextReply("mock-model", "Done with the tools."),
		openaitest.TextReply("mock-model", "Here is the follow-up."))
	c := startClient(t, f.sess, ServeOptions{})

	c.ok(map[string]any{"type": "prompt", "message": "start"})
	release(t, gate, 1)
	c.waitFor(0, func(r record) bool { return describe(r) == "message_start(assistant)" })
	c.ok(map[string]any{"type": "follow_up", "message": "and then this"})
	// A prompt with streamingBehavior followUp queues the same way.
	c.ok(map[string]any{"type": "prompt", "message": "and this too", "streamingBehavior": "followUp"})
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["pendingMessageCount"] != 2.0 || st["isStreaming"] != true {
		t.Errorf("state while queued: %v", st)
	}
	close(gate)
	endAt, _ := c.waitEvent(0, "agent_end")
	if n := len(f.srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (tool call, answer, then one per follow-up in one-at-a-time mode)", n)
	}
	reqs := f.srv.Requests()
	if roles := strings.Join(requestRoles(t, reqs[1]), " | "); strings.Contains(roles, "and then this") {
		t.Errorf("the follow-up was delivered while tools were still going: %s", roles)
	}
	if roles := strings.Join(requestRoles(t, reqs[2]), " | "); !strings.HasSuffix(roles, "tool | assistant | user:and then this") {
		t.Errorf("third request: %s", roles)
	}
	if roles := strings.Join(requestRoles(t, reqs[3]), " | "); !strings.HasSuffix(roles, "user:and then this | assistant | user:and this too") {
		t.Errorf("fourth request: %s", roles)
	}
	runs := 0
	for _, r := range c.records()[:endAt+1] {
		if r.obj["type"] == "agent_start" {
			runs++
		}
	}
	if runs != 1 {
		t.Errorf("%d runs, want the follow-ups inside the one run", runs)
	}
}

func TestAbortMidStreamKeepsPartialAndQueue(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	first, gate := slowText("lorem ipsum", " dolor sit", " amet")
	f.srv.Enqueue(first)
	c := startClient(t, f.sess, ServeOptions{})

	c.ok(map[string]any{"type": "prompt", "message": "write"})
	release(t, gate, 3) // role, "lorem ipsum", " dolor sit"
	c.waitFor(0, func(r record) bool { return strings.Contains(r.raw, `"delta":" dolor sit"`) })
	c.ok(map[string]any{"type": "steer", "message": "queued steer"})
	c.ok(map[string]any{"type": "follow_up", "message": "queued follow-up"})

	from := c.count()
	id := c.send(map[string]any{"type": "abort"})
	respAt, _ := c.waitFor(from, func(r record) bool { return r.isResponse(id) })
	endAt, end := c.waitEvent(from, "agent_end")
	if endAt > respAt {
		t.Errorf("abort answered before agent_end:\n%s", c.summary())
	}
	_, msgEnd := c.waitFor(from, func(r record) bool { return describe(r) == "message_end(assistant)" })
	msg := msgEnd.obj["message"].(map[string]any)
	if msg["stopReason"] != "aborted" || msg["errorMessage"] != "Request was aborted" {
		t.Errorf("aborted message: %s", msgEnd.raw)
	}
	if text := msg["content"].([]any)[0].(map[string]any)["text"]; text != "lorem ipsum dolor sit" {
		t.Errorf("partial text %q", text)
	}
	if _, turnEnd := c.waitEvent(from, "turn_end"); !strings.Contains(turnEnd.raw, `"toolResults":[]`) {
		t.Errorf("turn_end: %s", turnEnd.raw)
	}
	// system, user, the aborted answer
	if msgs := end.obj["messages"].([]any); len(msgs) != 3 {
		t.Errorf("agent_end messages: %d", len(msgs))
	}
	st := c.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["pendingMessageCount"] != 2.0 || st["isStreaming"] != false || st["messageCount"] != 3.0 {
		t.Errorf("state after abort: %v", st)
	}
	// The partial message is in the session file too.
	file := fileMessages(t, f.sess.Store().SessionFile())
	if len(file) != 3 || file[2]["stopReason"] != "aborted" {
		t.Errorf("session file: %v", file)
	}
	// The queued messages go out with the next prompt: the steer first, the follow-up when the
	// model is done.
	f.srv.Enqueue(openaitest.TextReply("mock-model", "ok"), openaitest.TextReply("mock-model", "ok again"))
	from = c.count()
	c.ok(map[string]any{"type": "prompt", "message": "still there?"})
	c.waitEvent(from, "agent_end")
	reqs := f.srv.Requests()
	if roles := strings.Join(requestRoles(t, reqs[len(reqs)-2]), " | "); !strings.HasSuffix(roles, "user:still there? | user:queued steer") {
		t.Errorf("request after the abort: %s", roles)
	}
	if roles := strings.Join(requestRoles(t, reqs[len(reqs)-1]), " | "); !strings.HasSuffix(roles, "user:queued follow-up") {
		t.Errorf("follow-up request: %s", roles)
	}
}
