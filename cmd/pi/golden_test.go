package main

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// piSample is real `pi --mode json` output (pi 0.73.1) of a four-request run against a scripted server.
const piSample = "../../testdata/pi/pi-json-events.jsonl"

type sampleEvent map[string]any

func loadSample(t *testing.T) []sampleEvent {
	t.Helper()
	f, err := os.Open(piSample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sampleEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e sampleEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// scriptFromSample rebuilds, from pi's events, the SSE chunks its scripted server sent: every text and
// tool-call delta becomes one chunk, so pi-go sees the same stream pi saw.
func scriptFromSample(t *testing.T, events []sampleEvent) []openaitest.Response {
	t.Helper()
	var responses []openaitest.Response
	var chunks *openaitest.Chunks
	var evs []string
	seenCalls := map[float64]bool{}
	for _, e := range events {
		switch e["type"] {
		case "message_start":
			if msg := e["message"].(map[string]any); msg["role"] == "assistant" {
				chunks = openaitest.NewChunks("mock-model")
				evs = []string{chunks.Role()}
				seenCalls = map[float64]bool{}
			}
		case "message_update":
			ame := e["assistantMessageEvent"].(map[string]any)
			switch ame["type"] {
			case "text_delta":
				evs = append(evs, chunks.Text(ame["delta"].(string)))
			case "toolcall_delta":
				idx := ame["contentIndex"].(float64)
				partial := ame["partial"].(map[string]any)["content"].([]any)
				call := partial[int(idx)].(map[string]any)
				id, name := "", ""
				if !seenCalls[idx] {
					id, name = call["id"].(string), call["name"].(string)
					seenCalls[idx] = true
				}
				evs = append(evs, chunks.ToolCall(0, id, name, ame["delta"].(string)))
			}
		case "message_end":
			msg := e["message"].(map[string]any)
			if msg["role"] != "assistant" {
				continue
			}
			finish := "stop"
			if msg["stopReason"] == "toolUse" {
				finish = "tool_calls"
			}
			usage := msg["usage"].(map[string]any)
			evs = append(evs, chunks.Finish(finish),
				chunks.Usage(int(usage["input"].(float64)), int(usage["output"].(float64)), 0),
				openaitest.Done())
			responses = append(responses, openaitest.Response{Events: evs})
		}
	}
	if len(responses) != 4 {
		t.Fatalf("sample has %d assistant messages, want 4", len(responses))
	}
	return responses
}

// eventShape is what must match pi: the event type, the stream event type, and the field names.
func eventShape(e sampleEvent) string {
	parts := []string{e["type"].(string)}
	if ame, ok := e["assistantMessageEvent"].(map[string]any); ok {
		parts = append(parts, ame["type"].(string), "ame{"+keys(ame)+"}")
	}
	parts = append(parts, "{"+keys(e)+"}")
	if msg, ok := e["message"].(map[string]any); ok {
		parts = append(parts, "message{"+keys(msg)+"}")
	}
	if res, ok := e["result"].(map[string]any); ok {
		parts = append(parts, "result{"+keys(res)+"}")
	}
	return strings.Join(parts, " ")
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// shapes lists the shapes of a run, with bash's streamed updates (whose number depends on how the
// output arrives) reduced to one.
func shapes(events []sampleEvent) []string {
	var out []string
	for _, e := range events {
		s := eventShape(e)
		if e["type"] == "tool_execution_update" {
			if len(out) > 0 && strings.HasPrefix(out[len(out)-1], "tool_execution_update") {
				continue
			}
			s = "tool_execution_update"
		}
		out = append(out, s)
	}
	return out
}

func TestJSONModeMatchesPiSample(t *testing.T) {
	sample := loadSample(t)
	p := newProject(t)
	p.write("README.md", "# Demo project\n\nA tiny project for the tool-call scenario.\n")
	p.write("notes.txt", "one\ntwo\nthree\n")
	p.write("src/main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	p.server.Enqueue(scriptFromSample(t, sample)...)
	r := p.run("", "--base-url", p.server.URL, "--model", "mock-model", "--mode", "json", "summarise this project")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var ours []sampleEvent
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e sampleEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("bad line %q", line)
		}
		ours = append(ours, e)
	}
	// pi 1.6 ends the stream with agent_settled, which pi 0.73.1's sample cannot have.
	if n := len(ours); n == 0 || ours[n-1]["type"] != "agent_settled" || ours[n-1]["aborted"] != false {
		t.Fatalf("the stream does not end with agent_settled: %v", ours[len(ours)-1])
	}
	ours = ours[:len(ours)-1]
	want, got := shapes(sample), shapes(ours)
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("event %d differs:\n pi:    %s\n pi-go: %s", i, w, g)
		}
	}
	// The final answer is the one pi's server sent.
	last := ours[len(ours)-1]["messages"].([]any)
	final := last[len(last)-1].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if final != "The project has a README, notes.txt (3 lines) and src/main.go. Done." {
		t.Errorf("final text %q", final)
	}
}
