package provider

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi16Messages returns every system message object, and every compaction checkpoint, in pi 1.6.0's
// session files (testdata/pi16), exactly as pi wrote them.
func pi16SystemMessages(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/pi16/*/*.jsonl")
	more, _ := filepath.Glob("../../testdata/pi16/*/*/session.jsonl")
	files = append(files, more...)
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "session.jsonl") && !strings.HasSuffix(f, "fork.jsonl") && !strings.HasSuffix(f, "new-session.jsonl") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var e struct {
				Message       json.RawMessage `json:"message"`
				SystemMessage json.RawMessage `json:"systemMessage"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(string(e.Message), `{"role":"system"`) {
				out = append(out, string(e.Message))
			}
			if e.SystemMessage != nil {
				out = append(out, string(e.SystemMessage))
			}
		}
		fh.Close()
	}
	if len(out) < 5 {
		t.Fatalf("found %d system messages in pi's fixtures", len(out))
	}
	return out
}

func TestSystemMessagesOfPiRoundTrip(t *testing.T) {
	checkpoints := 0
	for _, raw := range pi16SystemMessages(t) {
		m, err := UnmarshalMessage([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		sm, ok := m.(*SystemMessage)
		if !ok {
			t.Fatalf("decoded as %T", m)
		}
		if sm.TimestampLast {
			checkpoints++
		}
		if len(sm.Sections) == 0 || len(sm.ToolsAdded) == 0 {
			t.Errorf("sections or tools lost: %s", raw[:200])
		}
		got, err := sm.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != raw {
			t.Errorf("round trip\ngot  %s\nwant %s", got, raw)
		}
	}
	if checkpoints == 0 {
		t.Error("no compaction checkpoint in the fixtures")
	}
}

func TestSystemMessageDecodeEdges(t *testing.T) {
	cases := []struct{ in, out string }{
		// null and missing content read as "", as pi does
		{`{"role":"system","content":null,"timestamp":1}`, `{"role":"system","content":"","timestamp":1}`},
		{`{"role":"system","timestamp":1}`, `{"role":"system","content":"","timestamp":1}`},
		{`{"role":"system","content":[{"type":"text","text":"a"}],"sections":{"b":null,"a":"x"},"timestamp":2,"extra":true}`,
			`{"role":"system","content":[{"type":"text","text":"a"}],"sections":{"b":null,"a":"x"},"timestamp":2,"extra":true}`},
		{`{"role":"system","content":"","timestamp":3,"toolsRemoved":[{"name":"bash"}]}`,
			`{"role":"system","content":"","timestamp":3,"toolsRemoved":[{"name":"bash"}]}`},
	}
	for _, c := range cases {
		m, err := UnmarshalMessage([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got, _ := m.MarshalJSON()
		if string(got) != c.out {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.out)
		}
	}
	for _, bad := range []string{
		`{"role":"system","sections":{"a":1},"timestamp":1}`,
		`{"role":"system","sections":[],"timestamp":1}`,
		`{"role":"system","toolsRemoved":"bash","timestamp":1}`,
		`{"role":"system","timestamp":"now"}`,
	} {
		if _, err := UnmarshalMessage([]byte(bad)); err == nil || !strings.Contains(err.Error(), "system message") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}
