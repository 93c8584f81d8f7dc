package rpc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// loadSampleOutput reads the records pi 0.73.1 wrote in testdata/pi-rpc.jsonl (a copy of
// /work/shared/samples/pi-rpc.jsonl: {"dir","t_ms","msg"} per line).
func loadSampleOutput(t *testing.T) []record { return readTranscript(t, "testdata/pi-rpc.jsonl") }

// readTranscript reads the records a program wrote (dir "out") in a transcript of {"dir","msg"} lines,
// as scripts/interop and the 0.73.1 samples record them.
func readTranscript(t *testing.T, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var line struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Dir != "out" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(line.Msg, &obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, record{raw: string(line.Msg), obj: obj})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutSystemMessages drops what pi 1.6's system messages add to an exchange of pi 0.73.1's (their
// message events, their place in agent_end's messages), which testdata/pi16 checks.
func withoutSystemMessages(recs []record) []record {
	isSystem := func(v any) bool { m, ok := v.(map[string]any); return ok && m["role"] == "system" }
	var out []record
	for _, r := range recs {
		if isSystem(r.obj["message"]) {
			continue
		}
		if msgs, ok := r.obj["messages"].([]any); ok && r.str("type") == "agent_end" {
			var kept []any
			for _, m := range msgs {
				if !isSystem(m) {
					kept = append(kept, m)
				}
			}
			r.obj["messages"] = kept
		}
		out = append(out, r)
	}
	return out
}

// keyPaths collects every field path of v with the JSON type at its end ("message.usage.input:n").
func keyPaths(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			keyPaths(prefix+"."+k, e, out)
		}
	case []any:
		for _, e := range v {
			keyPaths(prefix+"[]", e, out)
		}
		if len(v) == 0 {
			out[prefix+":[]"] = true
		}
	case string:
		out[prefix+":s"] = true
	case float64:
		out[prefix+":n"] = true
	case bool:
		out[prefix+":b"] = true
	case nil:
		out[prefix+":null"] = true
	}
}

// shapes groups the field paths of the records by their description (event type, message role,
// delta kind), with ids normalised away.
func shapes(recs []record) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, r := range recs {
		d := describe(r)
		if r.str("type") == "response" {
			d = "response " + fmt.Sprint(r.obj["command"])
		}
		if out[d] == nil {
			out[d] = map[string]bool{}
		}
		keyPaths("", r.obj, out[d])
	}
	return out
}

// normalisedKinds is the sequence of record kinds with response ids replaced by their command.
func normalisedKinds(recs []record) []string {
	kinds := eventKinds(recs)
	for i, k := range kinds {
		if strings.HasPrefix(k, "response ") {
			f := strings.Fields(k)
			kinds[i] = "response " + f[2] + " " + f[3]
		}
	}
	return kinds
}

// TestGoldenShapeOfPiExchange replays the exchange of pi's sample (a prompt, a steer while the answer
// streams, a bash call, an abort during the next answer, a second prompt, get_state) against pi-go and
// compares what comes out: the same records in the same order, with the same fields.
func TestGoldenShapeOfPiExchange(t *testing.T) {
	want := loadSampleOutput(t)
	f := newFixture(t, fixtureOptions{inMemory: true})

	ch := openaitest.NewChunks("mock-model")
	essay := openaitest.Response{Events: []string{ch.Role(),
		ch.Text("Starting a"), ch.Text(" slow answ"), ch.Text("er. lorem "), ch.Text("ipsum dolo"),
		ch.ToolCall(0, "call_mock000001_0", "bash", ""), ch.ToolCall(0, "", "", `{"command"`),
		ch.ToolCall(0, "", "", `:"echo step1-done"}`), ch.Finish("tool_calls"), openaitest.Done()}}
	essayGate := make(chan struct{})
	essay.Gate = essayGate
	second := openaitest.Response{Events: []string{ch.Role(), ch.Text("lorem"), ch.Text(" ipsu"), ch.Text("m dol"),
		ch.Text("never sent"), ch.Finish("stop"), openaitest.Done()}}
	secondGate := make(chan struct{})
	second.Gate = secondGate
	third := openaitest.TextReply("mock-model", "Still he", "re after", " the abo", "rt.")
	f.srv.Enqueue(essay, second, third)
	c := startClient(t, f.sess, ServeOptions{})

	c.sendLine(`{"id": "p1", "type": "prompt", "message": "write a long essay, then run a command"}`)
	c.response("p1")
	release(t, essayGate, 3)
	c.waitFor(0, func(r record) bool { return strings.Contains(r.raw, `"delta":" slow answ"`) })
	c.sendLine(`{"id": "s1", "type": "steer", "message": "STEER: please keep it short"}`)
	c.response("s1")
	close(essayGate)
	release(t, secondGate, 4)
	c.waitFor(0, func(r record) bool { return strings.Contains(r.raw, `"delta":"m dol"`) })
	c.sendLine(`{"id": "a1", "type": "abort"}`)
	c.response("a1")
	c.sendLine(`{"id": "p2", "type": "prompt", "message": "are you still there?"}`)
	c.response("p2")
	endAt, _ := c.waitFor(0, func(r record) bool {
		return r.obj["type"] == "agent_end" && strings.Contains(r.raw, "Still here after the abort.")
	})
	c.waitEvent(endAt, "agent_settled") // idle from here on, as in pi 1.6 (0.73.1 was idle at agent_end)
	c.sendLine(`{"id": "g1", "type": "get_state"}`)
	c.response("g1")
	got := withoutSystemMessages(without073(c.records()))

	gotKinds, wantKinds := normalisedKinds(got), normalisedKinds(want)
	if strings.Join(gotKinds, "\n") != strings.Join(wantKinds, "\n") {
		t.Errorf("record sequence differs from pi's:\n%s", sideBySide(gotKinds, wantKinds))
	}
	gotShapes, wantShapes := shapes(got), shapes(want)
	for kind, paths := range wantShapes {
		if strings.HasPrefix(kind, "message_update") {
			continue // pi 1.6 writes the delta only; the sample has 0.73.1's full message
		}
		missing, extra := diffSets(paths, gotShapes[kind])
		missing, extra = withoutKnown(missing), withoutKnown(extra)
		if len(missing)+len(extra) > 0 {
			t.Errorf("%s: fields pi writes and pi-go does not: %v; fields only pi-go writes: %v", kind, missing, extra)
		}
	}
	// get_state is the same object, values included, but for the server's address and session id.
	gs := got[len(got)-1].obj["data"].(map[string]any)
	ws := want[len(want)-1].obj["data"].(map[string]any)
	gs["sessionId"], ws["sessionId"] = "", ""
	ws["messageCount"] = ws["messageCount"].(float64) + 1 // pi-go's transcript holds the system message
	gs["model"].(map[string]any)["baseUrl"], ws["model"].(map[string]any)["baseUrl"] = "", ""
	if jsonOf(t, gs) != jsonOf(t, ws) {
		t.Errorf("get_state:\n got %s\nwant %s", jsonOf(t, gs), jsonOf(t, ws))
	}
}

// without073 drops what pi 1.6 added to this exchange, which pi 0.73.1's sample cannot show:
// agent_settled records and the data.disposition of prompt and steer responses (golden16_test.go
// checks them against pi 1.6's own transcripts).
func without073(recs []record) []record {
	var out []record
	for _, r := range recs {
		if r.obj["type"] == "agent_settled" {
			continue
		}
		if data, ok := r.obj["data"].(map[string]any); ok && r.obj["type"] == "response" && len(data) == 1 && data["disposition"] != nil {
			delete(r.obj, "data")
		}
		out = append(out, r)
	}
	return out
}

// pi16Fields are the fields pi 1.6 added to the records of this exchange (and a tool result's
// structured content), which pi 0.73.1's sample cannot have (the comparison with pi 1.6's own output
// is in cmd/pi's fixture tests).
var pi16Fields = []string{".rawStopReason:s", ".durationMs:n", ".thinkingLevel:s", ".usage.reasoning:n", ".usage.cost.totalFromProvider:b",
	".willRetry:b"}

func withoutKnown(paths []string) []string {
	var out []string
next:
	for _, p := range paths {
		for _, f := range pi16Fields {
			if strings.HasSuffix(p, f) || strings.HasPrefix(p, ".result.structuredContent.") {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

func diffSets(want, got map[string]bool) (missing, extra []string) {
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func sideBySide(got, want []string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := " "
		if g != w {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %-45s %s\n", mark, g, w)
	}
	return b.String()
}
