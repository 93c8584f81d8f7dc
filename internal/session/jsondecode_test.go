package session

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// messageCorpus is a set of message objects in the shapes pi writes plus edge cases for the fast path.
var messageCorpus = []string{
	`{"role":"user","content":"hi","timestamp":1}`,
	`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":1733234567000}`,
	`{"role":"user","content":[],"timestamp":1}`,
	`{"role":"user","content":null,"timestamp":1}`,
	`{"role":"user","content":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00 \u2028","timestamp":-5}`,
	"{\"role\":\"user\",\"content\":\"bad utf8 \xff\xfe ok\",\"timestamp\":1}",
	`{"role":"user","content":"x","timestamp":1,"extra":{"a":[1,2]},"api":null}`,
	`{"role":"user","content":"x","timestamp":1.5}`,
	`{"role":"user","content":"x","timestamp":"1"}`,
	`{"role":"user","content":"x","content":"y","timestamp":1}`,
	`{"role":"user","content":5,"timestamp":1}`,
	`{"content":"x","role":"user","timestamp":1}`,
	`{"role":"user","content":[{"type":"text","text":"x","weird":true,"textSignature":"sig"}],"timestamp":1}`,
	`{"role":"user","content":[{"text":"x","type":"text"}],"timestamp":1}`,
	`{"role":"user","content":[{"type":"future","a":1}],"timestamp":1}`,
	`{"role":"user","content":[{"type":"future"}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"reasoning_content"},{"type":"text","text":"Let me look."},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls"}}],"api":"openai-completions","provider":"my-llm","model":"qwen3","usage":{"input":812,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":852,"cost":{"input":0.001,"output":1e-7,"cacheRead":0,"cacheWrite":0,"total":0.0010001}},"stopReason":"toolUse","timestamp":1733234568000}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":null},{"type":"toolCall","id":"d","name":"n"},{"type":"thinking","thinking":"","redacted":true}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0},"stopReason":"error","timestamp":2,"errorMessage":"boom","responseId":"r"}`,
	`{"role":"assistant","content":"str","api":"a","provider":"p","model":"m","stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"Input":3},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"input":3.0},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"input":null,"cost":null},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{},"partialArgs":"{"}],"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","stopReason":"stop","timestamp":2}`,
	`{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"README.md\nsrc"}],"isError":false,"timestamp":1733234568500}`,
	`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":"plain","details":{"diff":"x","n":[1,2.5,null]},"isError":true,"timestamp":1}`,
	`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[],"details":null,"isError":null,"timestamp":1}`,
	`{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}`,
	`{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}`,
	`{"role":"custom","customType":"x","content":[{"type":"text","text":"c"}],"display":false,"details":{"a":1},"timestamp":1}`,
	`{"role":"branchSummary","summary":"s","fromId":"root","timestamp":1}`,
	`{"role":"compactionSummary","summary":"s","tokensBefore":10,"timestamp":1}`,
	`{"role":"martian","x":1,"timestamp":1}`,
	` { "role" : "user" , "content" : [ { "type" : "text" , "text" : "spaced" } ] , "timestamp" : 1 } `,
}

func sameDecode(t *testing.T, data []byte) {
	t.Helper()
	want, werr := provider.UnmarshalMessage(data)
	got, gerr := decodeMessage(data)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s\nerror mismatch: provider %v, fast %v", data, werr, gerr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s\ndecoded differently:\nprovider %#v\nfast     %#v", data, want, got)
	}
}

func TestDecodeMessageMatchesProvider(t *testing.T) {
	for _, s := range messageCorpus {
		sameDecode(t, []byte(s))
	}
	// every message of the real pi session
	data, err := os.ReadFile("../../testdata/pi/pi-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var env struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(line, &env) == nil && env.Message != nil {
			sameDecode(t, env.Message)
		}
	}
}

func TestFastPathTaken(t *testing.T) {
	for _, s := range messageCorpus[:3] {
		if _, ok := fastMessage([]byte(s), nil); !ok {
			t.Errorf("fast path refused %s", s)
		}
	}
	if _, ok := fastMessage([]byte(messageCorpus[16]), nil); !ok {
		t.Errorf("fast path refused the assistant message")
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range messageCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, data)
	})
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range messageCorpus {
		f.Add([]byte(s))
	}
	f.Add([]byte(`[1,-0.5e+3,true,false,null,"\u12"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid = %v", data, got, want)
		}
		if json.Valid(data) && len(data) > 0 && bytes.TrimSpace(data)[0] == '"' {
			var want string
			_ = json.Unmarshal(data, &want)
			r := reader{b: data}
			got, err := r.str()
			if err != nil || got != want {
				t.Fatalf("str(%q) = %q, %v; want %q", data, got, err, want)
			}
		}
	})
}

func FuzzSkipLoose(f *testing.F) {
	for _, s := range messageCorpus {
		f.Add([]byte(s))
	}
	f.Add([]byte(`["a\\\"b",{"x":"\\\\"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// on valid JSON the loose skip ends exactly where the strict one does
		if !json.Valid(data) {
			return
		}
		strict, loose := reader{b: data}, reader{b: data}
		if err := strict.skip(); err != nil {
			t.Fatal(err)
		}
		if err := loose.skipLoose(); err != nil || loose.i != strict.i {
			t.Fatalf("skipLoose(%q) ended at %d (%v), skip at %d", data, loose.i, err, strict.i)
		}
	})
}
