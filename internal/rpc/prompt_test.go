package rpc

import (
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// eventKinds describes records compactly, with runs of the same streamed update (message_update of
// one kind, tool_execution_update) collapsed: how a server or a tool splits its output is not the
// protocol's business.
func eventKinds(recs []record) []string {
	var out []string
	for _, r := range recs {
		d := describe(r)
		if len(out) > 0 && out[len(out)-1] == d && (strings.HasPrefix(d, "message_update") || d == "tool_execution_update") {
			continue
		}
		out = append(out, d)
	}
	return out
}

func TestPromptStreamsEventsToAgentEnd(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "Hello", " there", "!"))
	c := startClient(t, f.sess, ServeOptions{})

	id := c.send(map[string]any{"type": "prompt", "message": "hi"})
	respAt, resp := c.waitFor(0, func(r record) bool { return r.isResponse(id) })
	if resp.raw != `{"id":"`+id+`","type":"response","command":"prompt","success":true,"data":{"disposition":"started"}}` {
		t.Errorf("response: %s", resp.raw)
	}
	endAt, end := c.waitEvent(respAt, "agent_end")
	got := strings.Join(eventKinds(c.records()[respAt:endAt+1]), "\n")
	want := strings.Join([]string{
		"response req-1 prompt success=true <nil>",
		"agent_start", "turn_start", "message_start(system)", "message_end(system)", "message_start(user)", "message_end(user)",
		"message_start(assistant)", "message_update(assistant) text_start", "message_update(assistant) text_delta",
		"message_update(assistant) text_end", "message_end(assistant)", "turn_end(assistant)", "agent_end",
	}, "\n")
	if _, settled := c.waitEvent(endAt, "agent_settled"); settled.raw != `{"type":"agent_settled","aborted":false}` {
		t.Errorf("agent_settled: %s", settled.raw)
	}
	if got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	msgs := end.obj["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["stopReason"] != "stop" || last["content"].([]any)[0].(map[string]any)["text"] != "Hello there!" {
		t.Errorf("final message: %v", last)
	}
	// The user message's content is a list of blocks, as pi sends it.
	_, us := c.waitFor(0, func(r record) bool { return describe(r) == "message_start(user)" })
	if !strings.Contains(us.raw, `"content":[{"type":"text","text":"hi"}]`) {
		t.Errorf("user message: %s", us.raw)
	}
}

// A client written for pi 0.73.1 takes agent_end for the end of the run: a prompt it sends then starts
// a new run once the previous operation has settled, instead of being refused. get_state says busy
// until agent_settled, as pi 1.6 does.
func TestPromptRightAfterAgentEndIsAccepted(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "one"), openaitest.TextReply("mock-model", "two"))
	c, s := startServer(t, f.sess, ServeOptions{})
	c.ok(map[string]any{"type": "get_state"}) // Serve is subscribed from here on

	// Hold the loop after the RPC server has written agent_end: the run's operation stays open.
	hold := make(chan struct{})
	var once sync.Once
	f.sess.Subscribe(func(e harness.Event) {
		if e.Type == "agent_end" {
			once.Do(func() { <-hold })
		}
	})
	registered := make(chan struct{}, 4)
	s.runs.mu.Lock()
	s.runs.testHookBegin = func() { registered <- struct{}{} }
	s.runs.mu.Unlock()

	c.ok(map[string]any{"type": "prompt", "message": "first"})
	<-registered
	c.waitEvent(0, "agent_end")
	if !f.sess.IsStreaming() {
		t.Fatal("the first operation should still be open")
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isStreaming"] != true {
		t.Errorf("get_state between agent_end and agent_settled: %v", st["isStreaming"])
	}
	id := c.send(map[string]any{"type": "prompt", "message": "second"})
	<-registered // the second prompt has seen the run over and waits for the operation
	close(hold)
	if r := c.response(id); r.obj["success"] != true {
		t.Fatalf("prompt after agent_end: %s", r.raw)
	}
	endAt, end := c.waitFor(0, func(r record) bool { return r.obj["type"] == "agent_end" && strings.Contains(r.raw, "two") })
	if !strings.Contains(end.raw, `"text":"second"`) {
		t.Errorf("second run: %s", end.raw)
	}
	c.waitEvent(endAt, "agent_settled")
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isStreaming"] != false {
		t.Errorf("get_state after agent_settled: %v", st["isStreaming"])
	}
}
