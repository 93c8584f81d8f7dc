package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// get_entries hands out the file's lines as they are; get_tree nests them, branches and labels
// included, children oldest first.
func TestGetEntriesAndTree(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "one"), openaitest.TextReply("mock-model", "two"),
		openaitest.TextReply("mock-model", "three"))
	c := startClient(t, f.sess, ServeOptions{})

	for _, p := range []string{"first", "second"} {
		from := c.count()
		c.ok(map[string]any{"type": "prompt", "message": p})
		c.waitEvent(from, "agent_settled")
	}
	store := f.sess.Store()
	entries := store.Entries()
	// Branch from the first answer and label the first prompt: a second child under the first answer.
	var firstAnswer, firstPrompt string
	for _, e := range entries {
		if e.Type == "message" && e.Role == "assistant" && firstAnswer == "" {
			firstAnswer = e.ID
		}
		if e.Type == "message" && e.Role == "user" && firstPrompt == "" {
			firstPrompt = e.ID
		}
	}
	if err := store.Branch(firstAnswer); err != nil {
		t.Fatal(err)
	}
	if _, err := store.AppendLabelChange(firstPrompt, "start here"); err != nil {
		t.Fatal(err)
	}
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": "third"})
	c.waitEvent(from, "agent_settled")
	entries = store.Entries()

	// get_entries: every line of the file after the header, in order, and the leaf.
	r := c.call(map[string]any{"type": "get_entries"})
	var lines []string
	for _, e := range entries {
		raw, err := e.Raw()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(raw))
	}
	want := fmt.Sprintf(`{"id":"%s","type":"response","command":"get_entries","success":true,"data":{"entries":[%s],"leafId":%q}}`,
		r.obj["id"], strings.Join(lines, ","), store.LeafID())
	if r.raw != want {
		t.Errorf("get_entries:\n got %.400s\nwant %.400s", r.raw, want)
	}
	since := c.ok(map[string]any{"type": "get_entries", "since": entries[len(entries)-3].ID}).(map[string]any)
	if got := since["entries"].([]any); len(got) != 2 || got[1].(map[string]any)["id"] != store.LeafID() {
		t.Errorf("since the third newest: %v", got)
	}
	if r := c.call(map[string]any{"type": "get_entries", "since": store.LeafID()}); !strings.Contains(r.raw, `"data":{"entries":[],"leafId":`) {
		t.Errorf("since the leaf: %s", r.raw)
	}
	if r := c.call(map[string]any{"type": "get_entries", "since": 5}); r.obj["success"] != false ||
		r.str("error") != `Invalid "since" in get_entries: expected a string, got a number` {
		t.Errorf("a since that is no string: %s", r.raw)
	}

	// get_tree: walk it and check every node against the store.
	tree := c.ok(map[string]any{"type": "get_tree"}).(map[string]any)
	if tree["leafId"] != store.LeafID() {
		t.Errorf("tree leaf %v", tree["leafId"])
	}
	seen := 0
	var walk func(nodes []any, parent string)
	walk = func(nodes []any, parent string) {
		for i, n := range nodes {
			n := n.(map[string]any)
			e := n["entry"].(map[string]any)
			id := e["id"].(string)
			seen++
			if p, _ := e["parentId"].(string); p != parent {
				t.Errorf("%s under %s, parentId %s", id, parent, p)
			}
			label, labelled := n["label"]
			switch {
			case id == firstPrompt && (label != "start here" || n["labelTimestamp"] == nil):
				t.Errorf("labelled node %v", n)
			case id != firstPrompt && labelled:
				t.Errorf("unlabelled node with a label: %v", n)
			}
			if i > 0 && nodes[i-1].(map[string]any)["entry"].(map[string]any)["timestamp"].(string) > e["timestamp"].(string) {
				t.Errorf("children of %s not oldest first", parent)
			}
			walk(n["children"].([]any), id)
		}
	}
	walk(tree["tree"].([]any), "")
	if seen != len(entries) {
		t.Errorf("tree has %d entries, the file %d", seen, len(entries))
	}
	// The label entry went onto the new branch: the first answer has two children (the second prompt
	// and the label), so the tree branches.
	var children int
	for _, e := range entries {
		if e.ParentID == firstAnswer {
			children++
		}
	}
	if children != 2 {
		t.Fatalf("%d children of the first answer, want 2 (second prompt, label)", children)
	}
}

func TestClearQueueAndThinkingLevels(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	from := c.count()
	if r := c.call(map[string]any{"type": "clear_queue"}); !strings.HasSuffix(r.raw, `"data":{"steering":[],"followUp":[]}}`) {
		t.Errorf("clear_queue with nothing queued: %s", r.raw)
	}
	if got := eventKinds(c.records()[from:]); got[0] != "queue_update" {
		t.Errorf("clear_queue announces the empty queues: %v", got)
	}
	c.ok(map[string]any{"type": "steer", "message": "s1"})
	c.ok(map[string]any{"type": "follow_up", "message": "f1"})
	c.ok(map[string]any{"type": "follow_up", "message": "f2"})
	if r := c.call(map[string]any{"type": "clear_queue"}); !strings.HasSuffix(r.raw, `"data":{"steering":["s1"],"followUp":["f1","f2"]}}`) {
		t.Errorf("clear_queue: %s", r.raw)
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["pendingMessageCount"] != 0.0 {
		t.Errorf("pending after clear_queue: %v", st["pendingMessageCount"])
	}
	if f.sess.Agent().HasQueuedMessages() {
		t.Error("the agent's queues were not cleared")
	}

	levels := func() string {
		return fmt.Sprint(c.ok(map[string]any{"type": "get_available_thinking_levels"}).(map[string]any)["levels"])
	}
	if got := levels(); got != "[off]" {
		t.Errorf("mock-model levels %s", got)
	}
	c.ok(map[string]any{"type": "set_model", "provider": "mock", "modelId": "thinker"})
	if got := levels(); got != "[off minimal low medium high]" {
		t.Errorf("thinker levels %s", got)
	}
	// max is a level; a model without it gets the nearest one below.
	c.ok(map[string]any{"type": "set_thinking_level", "level": "max"})
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["thinkingLevel"] != "high" {
		t.Errorf("max on thinker: %v", st["thinkingLevel"])
	}
	if got := c.ok(map[string]any{"type": "cycle_thinking_level"}).(map[string]any)["level"]; got != "off" {
		t.Errorf("cycling from high: %v", got)
	}
}

// bash streams its output as bash_execution_update events with the command's id, as JSON wrote it.
func TestBashExecutionUpdates(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	for _, tc := range []struct{ line, want string }{
		{`{"id":7,"type":"bash","command":"printf 'a\\nb\\n'"}`, `{"type":"bash_execution_update","id":7,"delta":"a\nb\n"}`},
		{`{"type":"bash","command":"echo no id"}`, `{"type":"bash_execution_update","delta":"no id\n"}`},
	} {
		from := c.count()
		c.sendLine(tc.line)
		at, _ := c.waitFor(from, func(r record) bool { return r.obj["type"] == "response" })
		var deltas []string
		var raws []string
		for _, r := range c.records()[from:at] {
			if r.obj["type"] != "bash_execution_update" {
				t.Errorf("unexpected record %s", r.raw)
				continue
			}
			deltas = append(deltas, r.str("delta"))
			raws = append(raws, r.raw)
		}
		// The output may arrive in pieces; put together it is the command's.
		var wantRec map[string]any
		_ = json.Unmarshal([]byte(tc.want), &wantRec)
		if strings.Join(deltas, "") != wantRec["delta"] || len(raws) == 0 {
			t.Errorf("%s: updates %q", tc.line, raws)
			continue
		}
		if len(raws) == 1 && raws[0] != tc.want {
			t.Errorf("%s: update %s, want %s", tc.line, raws[0], tc.want)
		}
	}
	if r := c.call(map[string]any{"type": "bash", "command": "true", "excludeFromContext": "yes"}); r.obj["success"] != false ||
		r.str("error") != `Invalid "excludeFromContext" in bash: expected a boolean, got a string` {
		t.Errorf("excludeFromContext that is no boolean: %s", r.raw)
	}
}
