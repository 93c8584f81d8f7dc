package rpc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func TestParseErrorsAndUnknownCommandsAsPi(t *testing.T) {
	f := newFixture(t, fixtureOptions{inMemory: true})
	c := startClient(t, f.sess, ServeOptions{})
	cases := []struct{ in, want string }{
		{`{"type":"prompt"`, `{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Expected ',' or '}' after property value in JSON at position 16"}`},
		{``, `{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected end of JSON input"}`},
		{`hello`, `{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected token 'h', \"hello\" is not valid JSON"}`},
		{"\xff\xfe{}", "{\"type\":\"response\",\"command\":\"parse\",\"success\":false,\"error\":\"Failed to parse command: Unexpected token '\ufffd', \\\"\ufffd\ufffd{}\\\" is not valid JSON\"}"},
		{`{"id":"u1","type":"frobnicate"}`, `{"id":"u1","type":"response","command":"frobnicate","success":false,"error":"Unknown command: frobnicate"}`},
		{`{"id":"u2"}`, `{"id":"u2","type":"response","success":false,"error":"Unknown command: undefined"}`},
		{`{"type":"frobnicate"}`, `{"type":"response","command":"frobnicate","success":false,"error":"Unknown command: frobnicate"}`},
		{`42`, `{"type":"response","success":false,"error":"Unknown command: undefined"}`},
		{`["get_state"]`, `{"type":"response","success":false,"error":"Unknown command: undefined"}`},
		{`{"type":5,"id":3}`, `{"id":3,"type":"response","command":5,"success":false,"error":"Unknown command: 5"}`},
		{`{"type":["get_state"]}`, `{"type":"response","command":["get_state"],"success":false,"error":"Unknown command: get_state"}`},
		{`{"type":{"b":1,"1":2}}`, `{"type":"response","command":{"1":2,"b":1},"success":false,"error":"Unknown command: [object Object]"}`},
		{`null`, `{"type":"response","command":"parse","success":false,"error":"Failed to parse command: a command must be a JSON object, not null"}`},
		{`{"id":7,"type":"set_session_name","name":"  "}`, `{"id":7,"type":"response","command":"set_session_name","success":false,"error":"Session name cannot be empty"}`},
		{`{"id":{"z":1,"a":[1.50,"\u00e9"]},"type":"abort_retry"}`, `{"id":{"z":1,"a":[1.5,"é"]},"type":"response","command":"abort_retry","success":true}`},
		{`{"id":null,"type":"abort_bash"}`, `{"id":null,"type":"response","command":"abort_bash","success":true}`},
	}
	for _, tc := range cases {
		before := c.count()
		c.sendLine(tc.in)
		// A get_state after each line proves the line got exactly the one answer before it.
		id := c.send(map[string]any{"type": "get_state"})
		at, _ := c.waitFor(before, func(r record) bool { return r.isResponse(id) })
		recs := c.records()[before:at]
		if len(recs) != 1 || recs[0].raw != tc.want {
			var got []string
			for _, r := range recs {
				got = append(got, r.raw)
			}
			t.Errorf("%q:\n got %s\nwant %s", tc.in, strings.Join(got, "\n     "), tc.want)
		}
	}
	// An extension UI response is swallowed, as pi does when nothing waits for it.
	before := c.count()
	c.sendLine(`{"type":"extension_ui_response","id":"x","value":"y"}`)
	id := c.send(map[string]any{"type": "get_state"})
	if at, _ := c.waitFor(before, func(r record) bool { return r.isResponse(id) }); at != before {
		t.Errorf("extension_ui_response was answered: %s", c.records()[before].raw)
	}
}

func TestFramingUnicodeSeparatorsCRLFAndLastLine(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "line\u2028sep\u2029para"))
	c := startClient(t, f.sess, ServeOptions{})

	// U+2028/U+2029 inside a string are characters, never record separators, both ways.
	c.sendLine("{\"id\":\"p\",\"type\":\"prompt\",\"message\":\"a\u2028b\u2029c\"}\r")
	if r := c.response("p"); r.obj["success"] != true {
		t.Fatalf("prompt: %s", r.raw)
	}
	_, end := c.waitEvent(0, "agent_end")
	if !strings.Contains(end.raw, "\"text\":\"a\u2028b\u2029c\"") || !strings.Contains(end.raw, "line\u2028sep\u2029para") {
		t.Errorf("separators were escaped or lost: %s", end.raw)
	}
	// CRLF framing.
	if _, err := c.w.Write([]byte("{\"id\":\"crlf\",\"type\":\"get_messages\"}\r\n")); err != nil {
		t.Fatal(err)
	}
	msgs := c.response("crlf").obj["data"].(map[string]any)["messages"].([]any)
	if len(msgs) != 3 || msgs[1].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != "a\u2028b\u2029c" {
		t.Errorf("messages: %v", msgs)
	}
	// The last command needs no LF: it is run at the end of the input, before Serve returns.
	if _, err := c.w.Write([]byte(`{"id":"last","type":"get_state"}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.closeInput(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	<-c.outEOF
	if r := c.response("last"); r.obj["success"] != true {
		t.Errorf("last line: %s", r.raw)
	}
}

func TestBadInputLosesNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.srv.Enqueue(openaitest.TextReply("mock-model", "first answer"))
	c := startClient(t, f.sess, ServeOptions{MaxLineBytes: 12 << 20})
	c.ok(map[string]any{"type": "prompt", "message": "hello"})
	c.waitEvent(0, "agent_settled")
	file := f.sess.Store().SessionFile()
	before, err := readFile(file)
	if err != nil {
		t.Fatal(err)
	}
	state := func() map[string]any { return c.ok(map[string]any{"type": "get_state"}).(map[string]any) }
	stateBefore := state()

	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(rng.IntN(256))
		if garbage[i] == '\n' {
			garbage[i] = 0
		}
	}
	huge := `{"id":"huge","type":"prompt","message":"` + strings.Repeat("x", 10<<20) + `"` // 10 MB, unterminated object
	bad := []struct{ line, wantErr string }{
		{string(garbage), "Failed to parse command: Unexpected token"},
		{huge, "Failed to parse command: Expected ',' or '}' after property value in JSON at position 10485801"},
		{strings.Repeat("y", 13<<20), "Failed to parse command: the line is 13631488 bytes long, more than the limit of 12582912"},
		{`{"id":"t1","type":"prompt","message":42}`, `Invalid "message" in prompt: expected a string, got a number`},
		{`{"id":"t2","type":"prompt"}`, `Missing "message" in prompt: expected a string`},
		{`{"id":"t3","type":"prompt","message":"x","images":"cat.png"}`, `Invalid "images" in prompt: expected an array of images, got a string`},
		{`{"id":"t4","type":"prompt","message":"x","images":[{"type":"image","data":"%%%","mimeType":"image/png"}]}`, `Invalid images[0] in prompt: data is not base64`},
		{`{"id":"t5","type":"prompt","message":"x","images":[{"type":"image","mimeType":"image/png"}]}`, `Missing "data" in images[0] of prompt: expected a string`},
		{`{"id":"t6","type":"prompt","message":"x","streamingBehavior":"later"}`, `Invalid "streamingBehavior" in prompt: "later" (expected "steer" or "followUp")`},
		{`{"id":"t7","type":"steer","message":{"text":"x"}}`, `Invalid "message" in steer: expected a string, got an object`},
		{`{"id":"t8","type":"set_auto_retry","enabled":"yes"}`, `Invalid "enabled" in set_auto_retry: expected a boolean, got a string`},
		{`{"id":"t9","type":"set_thinking_level","level":"extreme"}`, `Invalid "level" in set_thinking_level: "extreme"`},
		{`{"id":"t10","type":"set_steering_mode","mode":"sometimes"}`, `Invalid "mode" in set_steering_mode: "sometimes" (expected "all" or "one-at-a-time")`},
		{`{"id":"t11","type":"set_model","provider":"mock","modelId":"nope"}`, `Model not found: mock/nope`},
		{`{"id":"t12","type":"fork","entryId":"00000000"}`, `Invalid entry ID for forking`},
		{`{"id":"t13","type":"switch_session","sessionPath":7}`, `Invalid "sessionPath" in switch_session: expected a string, got a number`},
		{`{"id":"t14","type":"export_html","outputPath":7}`, `Invalid "outputPath" in export_html: expected a string, got a number`},
		{`{"id":"t15","type":"bash"}`, `Missing "command" in bash: expected a string`},
	}
	for _, b := range bad {
		from := c.count()
		c.sendLine(b.line)
		_, r := c.waitFor(from, func(r record) bool { return r.obj["type"] == "response" })
		if r.obj["success"] != false || !strings.HasPrefix(r.str("error"), b.wantErr) {
			t.Errorf("%.60q:\n got %.300s\nwant error %q", b.line, r.raw, b.wantErr)
		}
		if id, _ := json.Marshal(r.obj["id"]); strings.HasPrefix(b.line, `{"id":"t`) && !bytes.Contains([]byte(b.line), id) {
			t.Errorf("%.60q: response not attributed to the command's id: %s", b.line, r.raw)
		}
	}
	if got := state(); !sameState(got, stateBefore) {
		t.Errorf("state changed:\n%v\n%v", got, stateBefore)
	}
	after, err := readFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("session file changed:\n%s", after[len(before):])
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want 1", n)
	}
	// And the session still works.
	f.srv.Enqueue(openaitest.TextReply("mock-model", "still here"))
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": "again"})
	c.waitEvent(from, "agent_end")
}

func sameState(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestPromptWhileAnotherIsStartingIsRejected(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	resp, gate := slowText("one", " two")
	f.srv.Enqueue(resp)
	c := startClient(t, f.sess, ServeOptions{})
	// Both lines in one write: the second arrives while the first is starting.
	if _, err := c.w.Write([]byte(`{"id":"a","type":"prompt","message":"first"}` + "\n" + `{"id":"b","type":"prompt","message":"second"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if r := c.response("a"); r.obj["success"] != true {
		t.Fatalf("first: %s", r.raw)
	}
	r := c.response("b")
	if r.raw != `{"id":"b","type":"response","command":"prompt","success":false,"error":"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."}` {
		t.Errorf("second: %s", r.raw)
	}
	close(gate)
	_, end := c.waitEvent(0, "agent_end")
	if strings.Contains(end.raw, `"text":"second"`) {
		t.Errorf("the rejected prompt reached the run: %s", end.raw)
	}
	if n := f.sess.PendingMessageCount(); n != 0 {
		t.Errorf("pending = %d", n)
	}
}
