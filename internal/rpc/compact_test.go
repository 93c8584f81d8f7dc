package rpc

import (
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func compactionEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range fileEntries(t, path) {
		if e["type"] == "compaction" {
			out = append(out, e)
		}
	}
	return out
}

func TestCompactAndContextUsage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	// Nothing to compact yet: that command's own error, with its id.
	if r := c.call(map[string]any{"type": "compact"}); r.obj["success"] != false || r.obj["command"] != "compact" || r.str("error") == "" {
		t.Errorf("compact of an empty session: %s", r.raw)
	}
	f.srv.Enqueue(openaitest.TextReply("mock-model", "The answer is 42."), openaitest.TextReply("mock-model", "Another answer."))
	runPrompt(t, c, "what is the answer?")
	runPrompt(t, c, "and another one?")

	usage := c.ok(map[string]any{"type": "get_session_stats"}).(map[string]any)["contextUsage"].(map[string]any)
	if usage["contextWindow"] != 1000000.0 || usage["tokens"] == nil || usage["percent"] == nil {
		t.Errorf("contextUsage before compaction: %v", usage)
	}

	f.srv.Enqueue(openaitest.TextReply("mock-model", "## Goal\nAnswer questions."))
	from := c.count()
	id := c.send(map[string]any{"type": "compact", "customInstructions": "keep the numbers"})
	at, r := c.waitFor(from, func(r record) bool { return r.isResponse(id) })
	if r.obj["success"] != true {
		t.Fatalf("compact: %s", r.raw)
	}
	res := r.obj["data"].(map[string]any)
	if res["summary"] != "## Goal\nAnswer questions." || res["tokensBefore"].(float64) <= 0 || res["firstKeptEntryId"] == "" {
		t.Errorf("compaction result: %v", res)
	}
	// "Compacted from N tokens" is the size the footer showed.
	if res["tokensBefore"] != usage["tokens"] {
		t.Errorf("tokensBefore %v, the footer's context estimate %v", res["tokensBefore"], usage["tokens"])
	}
	if !strings.Contains(r.raw, `"data":{"summary":`) || !strings.Contains(r.raw, `"details":{"readFiles":[],"modifiedFiles":[]}`) {
		t.Errorf("result shape: %s", r.raw)
	}
	// pi 1.6: the estimate of what the compaction left, and what the summary request cost.
	if after := res["estimatedTokensAfter"].(float64); after <= 0 {
		t.Errorf("estimatedTokensAfter %v", after)
	}
	if u, _ := res["usage"].(map[string]any); u == nil || u["input"].(float64) <= 0 {
		t.Errorf("usage of the summary request: %v", res["usage"])
	}
	if got := eventKinds(c.records()[from : at+1]); strings.Join(got, ",") != "compaction_start,compaction_end,response "+id+" compact success=true <nil>" {
		t.Errorf("records: %v", got)
	}
	if start := c.records()[from]; start.raw != `{"type":"compaction_start","reason":"manual"}` {
		t.Errorf("compaction_start: %s", start.raw)
	}
	if body := string(f.srv.Requests()[2].Body); !strings.Contains(body, "keep the numbers") {
		t.Errorf("the instructions did not reach the summary request")
	}
	entries := compactionEntries(t, f.sess.Store().SessionFile())
	if len(entries) != 1 || entries[0]["summary"] != res["summary"] {
		t.Errorf("compaction entries: %v", entries)
	}
	// Right after a compaction the context size is unknown until the model answers again.
	r = c.call(map[string]any{"type": "get_session_stats"})
	if !strings.Contains(r.raw, `"contextUsage":{"tokens":null,"contextWindow":1000000,"percent":null}`) {
		t.Errorf("contextUsage after compaction: %s", r.raw)
	}
	// pi 1.6 counts every message of the session file, the summarised ones and the system message too.
	stats := r.obj["data"].(map[string]any)
	if stats["userMessages"] != 2.0 || stats["assistantMessages"] != 2.0 || stats["totalMessages"] != 5.0 ||
		stats["tokens"].(map[string]any)["output"].(float64) <= 0 {
		t.Errorf("stats after compaction: %s", r.raw)
	}
	// The compaction's system message checkpoint leads, then the summary (pi 1.6).
	msgs := c.ok(map[string]any{"type": "get_messages"}).(map[string]any)["messages"].([]any)
	if msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["role"] != "compactionSummary" {
		t.Errorf("transcript after compaction starts with %v, %v", msgs[0], msgs[1])
	}
}

func TestSlowCompactDoesNotBlockStateOrAbort(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "one"), openaitest.TextReply("mock-model", "two"))
	runPrompt(t, c, "first")
	runPrompt(t, c, "the second question, longer than the eight tokens kept")

	summary, gate := slowText("never", " finished")
	f.srv.Enqueue(summary)
	compactID := c.send(map[string]any{"type": "compact"})
	c.waitEvent(0, "compaction_start")
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isCompacting"] != true {
		t.Errorf("state while compacting: %v", st)
	}
	release(t, gate, 1)
	c.ok(map[string]any{"type": "abort"})
	r := c.response(compactID)
	if r.raw != `{"id":"`+compactID+`","type":"response","command":"compact","success":false,"error":"Compaction cancelled"}` {
		t.Errorf("cancelled compact: %s", r.raw)
	}
	if _, end := c.waitEvent(0, "compaction_end"); !strings.Contains(end.raw, `"aborted":true`) {
		t.Errorf("compaction_end: %s", end.raw)
	}
	if n := len(compactionEntries(t, f.sess.Store().SessionFile())); n != 0 {
		t.Errorf("%d compaction entries after a cancelled compaction", n)
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isCompacting"] != false || st["messageCount"] != 5.0 { // system + two exchanges
		t.Errorf("state after abort: %v", st)
	}
}

// A manual compaction of a session whose whole conversation is within what compaction keeps says so
// and sends no request (pi 0.73.1 asked the model to summarise an empty conversation).
func TestCompactOfAShortSessionSendsNoRequest(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "Hi."))
	runPrompt(t, c, "hello")
	r := c.call(map[string]any{"type": "compact"})
	if r.obj["success"] != false || !strings.HasPrefix(r.str("error"), "Nothing to compact (session too small): ") {
		t.Errorf("compact of a short session: %s", r.raw)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want only the prompt's", n)
	}
	if n := len(compactionEntries(t, f.sess.Store().SessionFile())); n != 0 {
		t.Errorf("%d compaction entries", n)
	}
}
