package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormaliserMasksDurationsAndStripsSystemDocs(t *testing.T) {
	v, err := parseJSON([]byte(`{"message":{"role":"system","content":"","sections":{"preamble":"P","docs":"<docs>/opt/pkg/README.md</docs>","cwd":"<cwd>/tmp/ws/proj</cwd>"}},"durationMs":45,"text":"see /opt/pkg/docs"}`))
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	n := newNormaliser("/tmp/ws")
	n.piPackage = "/opt/pkg"
	n.onDocs = func() { docs++ }
	got := render(n.value(v))
	want := `{"message":{"role":"system","content":"","sections":{"preamble":"P","cwd":"<cwd><W>/proj</cwd>"}},"durationMs":"<duration>","text":"see <pi-package>/docs"}`
	if got != want || docs != 1 {
		t.Errorf("got %s (docs removed %d times), want %s once", got, docs, want)
	}
}

func TestDiffKind(t *testing.T) {
	for line, want := range map[string]string{
		`[18 tool_execution_end]: pi-go lacks durationMs (pi: durationMs="<duration>")`:                    `[tool_execution_end]: pi-go lacks durationMs`,
		`[7 message_start/assistant].message.stopReason: pi "pending", pi-go "stop"`:                       `[message_start/assistant].message.stopReason: values differ`,
		`line 3 only in pi: message_start/system`:                                                          `only in pi: message_start/system`,
		`body.tools[2].function.parameters: pi-go adds additionalProperties (additionalProperties=false)`:  `body.tools[].function.parameters: pi-go adds additionalProperties`,
		`[3 response/get_messages].data.messages: length pi 4, pi-go 3`:                                    `[response/get_messages].data.messages: length differs`,
		`request count: pi 6, pi-go 5`:                                                                     `request count: values differ`,
		`[18 agent_end].messages[0]: only in pi: system {"role":"system"}`:                                 `[agent_end].messages[]: only in pi: system`,
		`[0 session]: key order pi [type,version,id,timestamp,cwd], pi-go [type,id,version,timestamp,cwd]`: `[session]: key order pi [type,version,id,timestamp,cwd], pi-go [type,id,version,timestamp,cwd]`,
	} {
		if got := diffKind(line); got != want {
			t.Errorf("diffKind(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestDiffAlignsMessagesByRole(t *testing.T) {
	a, _ := parseJSON([]byte(`[{"role":"system","content":""},{"role":"user","content":"hi"},{"role":"assistant","content":"A"}]`))
	b, _ := parseJSON([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"B"}]`))
	got := strings.Join(diffValues("messages", a, b), "\n")
	want := "messages: length pi 3, pi-go 2\n" +
		`messages[0]: only in pi: system {"role":"system","content":""}` + "\n" +
		`messages[2].content: pi "A", pi-go "B"`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNameEntriesKeepsTreeDifferencesLocal(t *testing.T) {
	pi, _ := parseLines([]byte(`{"type":"session","id":"019ad0a1-2b3c-7d4e-8f60-123456789abc","parentSession":"/s/019ad0a1-2b3c-7d4e-8f60-000000000002.jsonl"}
{"type":"message","id":"aaaaaaa1","parentId":null,"message":{"role":"system"}}
{"type":"message","id":"aaaaaaa2","parentId":"aaaaaaa1","message":{"role":"user"}}
{"type":"message","id":"aaaaaaa3","parentId":"aaaaaaa2","message":{"role":"assistant"}}
`))
	pigo, _ := parseLines([]byte(`{"type":"session","id":"019ad0a1-2b3c-7d4e-8f60-cba987654321","parentSession":"/s/019ad0a1-2b3c-7d4e-8f60-000000000001.jsonl"}
{"type":"message","id":"bbbbbbb2","parentId":null,"message":{"role":"user"}}
{"type":"message","id":"bbbbbbb3","parentId":"bbbbbbb2","message":{"role":"assistant"}}
`))
	na, nb := newNormaliser("/tmp/a"), newNormaliser("/tmp/b")
	na.nameEntries(pi)
	nb.nameEntries(pigo)
	got := strings.Join(compareSequences(normaliseAll(pi, na), normaliseAll(pigo, nb)), "\n")
	want := "line 1 only in pi: message/system\n" +
		`[2 message/user].parentId: pi "<message/system#1>", pi-go null`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The transcript writer keeps pi's bytes and marks a line that is no JSON.
func TestTranscriptJSONL(t *testing.T) {
	got := transcriptJSONL([]record{
		{In: true, Raw: `{"type":"get_state","id":"c1"}`},
		{Raw: `{"id":"c1","type":"response","n":1.50}`},
		{In: true, Raw: "this is not json"},
	})
	want := `{"dir":"in","msg":{"type":"get_state","id":"c1"}}` + "\n" +
		`{"dir":"out","msg":{"id":"c1","type":"response","n":1.50}}` + "\n" +
		`{"dir":"in","raw":"this is not json"}` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("invalid JSON line %s", line)
		}
	}
}
