package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// messageCorpus: messages in the shapes pi writes, and edge cases for the single pass.
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
	// keys of another block type are Extra, not fields
	`{"role":"user","content":[{"type":"text","text":"x","redacted":true,"arguments":{"a":1},"thinking":"t"}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"image","data":"x","mimeType":"image/png","id":"i","redacted":false}],"stopReason":"stop","timestamp":2}`,
	`{"role":"user","content":[{"type":""}],"timestamp":1}`,
	`{"role":"user","content":[{}],"timestamp":1}`,
	`{"role":"user","content":[5],"timestamp":1}`,
	`{"role":"user","content":[{"type":"text","text":5}],"timestamp":1}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","redacted":"yes"}],"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"input":1,"input":2},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"input":1e3,"cost":5},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"input":99999999999999999999},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"cost":{"total":1e400}},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":{"cost":{"Total":1,"input":"1"}},"stopReason":"stop","timestamp":2}`,
	`{"role":"assistant","content":[],"usage":[],"stopReason":"stop","timestamp":2}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"details":{"n":1e400},"timestamp":1}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":"no","timestamp":1}`,
	`{"r\u006fle":"user","c\u006fntent":"escaped keys","timestamp":1,"\u00e9":1}`,
	"{\"role\":\"user\",\"content\":\"x\",\"timestamp\":1,\"\xff\":1}",
	`{"role":"user","content":"x","timestamp":1,"role":"assistant"}`,
	`{"role":"user","content":"x","timestamp":1,"x":1,"x":2}`,
	`{"role":"user","content":"x","timestamp":99999999999999999999}`,
	`{"role":"user","content":"x","timestamp":1} x`,
	`{"role":"user","content":"x","timestamp":1`,
	`{"role":"user","content":"x\u12","timestamp":1}`,
	`{"role":"user"}`, `{"role":5}`, `{}`, `[]`, `null`, ``,
	// pi 1.6's fields
	`{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1034,"output":57,"cacheRead":200,"cacheWrite":0,"reasoning":3,"totalTokens":1291,"cost":{"input":0.003102,"output":0.0008550000000000001,"cacheRead":0.000059999999999999995,"cacheWrite":0,"total":0.004017000000000001,"totalFromProvider":false}},"stopReason":"toolUse","timestamp":1767323050000,"responseId":"r","responseModel":"served","rawStopReason":"tool_calls","durationMs":12,"thinkingLevel":"high"}`,
	`{"role":"assistant","content":[],"api":"anthropic-messages","provider":"a","model":"c","usage":{"input":5,"output":7,"cacheRead":0,"cacheWrite":3,"totalTokens":15,"cost":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0.5,"total":3.5,"totalFromProvider":true},"cacheWrite1h":2,"reasoning":4},"stopReason":"stop","timestamp":1}`,
	`{"role":"assistant","content":[],"usage":{"reasoning":null,"cacheWrite1h":null,"cost":{"totalFromProvider":null}},"stopReason":"error","timestamp":1,"errorMessage":"x","durationMs":1.5,"thinkingLevel":null}`,
	`{"role":"assistant","content":[],"usage":{"cost":{"totalFromProvider":"no"}},"stopReason":"stop","timestamp":1,"durationMs":"1"}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"durationMs":1,"timestamp":1767323052000}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"isError":true,"durationMs":3,"timestamp":1}`,
	`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"usage":null,"durationMs":null,"timestamp":1}`,
}

// sameDecode checks UnmarshalMessage (single pass when it can) against encoding/json's decoding.
func sameDecode(t *testing.T, data []byte) {
	t.Helper()
	want, werr := unmarshalMessage(data)
	got, gerr := UnmarshalMessage(data)
	if (werr != nil) != (gerr != nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("%s\nerror mismatch: encoding/json %v, UnmarshalMessage %v", data, werr, gerr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s\ndecoded differently:\nencoding/json %#v\nsingle pass   %#v", data, want, got)
	}
}

func TestUnmarshalMessageIsEncodingJSONs(t *testing.T) {
	for _, s := range messageCorpus {
		sameDecode(t, []byte(s))
	}
	// every message of real pi 0.73.1 and pi 1.6.0 sessions
	for _, file := range []string{"../../testdata/pi/pi-session.jsonl", "../../testdata/pi16/json-tool-run/session.jsonl"} {
		data, err := os.ReadFile(file)
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
}

func TestSinglePassTaken(t *testing.T) {
	var d MessageDecoder
	n := len(messageCorpus)
	for _, i := range []int{0, 1, 2, 16, 24, n - 7, n - 6, n - 3, n - 2} {
		if d.decodeFast([]byte(messageCorpus[i])) == nil {
			t.Errorf("the single pass refused %s", messageCorpus[i])
		}
	}
}

func FuzzUnmarshalMessage(f *testing.F) {
	for _, s := range messageCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameDecode(t, data) })
}

// TestDecoderReuse: a decoder that decodes many messages gives each its own strings.
func TestDecoderReuse(t *testing.T) {
	var d MessageDecoder
	var got []Message
	for _, s := range messageCorpus[:5] {
		m, err := d.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	for i, s := range messageCorpus[:5] {
		want, _ := unmarshalMessage([]byte(s))
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("message %d changed after later decodes: %#v", i, got[i])
		}
	}
}

func TestDecodeUsage(t *testing.T) {
	for _, c := range []struct {
		json  string
		plain bool
	}{
		{`{"input":812,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":852,"cost":{"input":0.001,"output":1e-7,"cacheRead":0,"cacheWrite":0,"total":0.0010001}}`, true},
		{`{}`, true}, {`{"input":null,"cost":null}`, true}, {`{"cost":{"total":null}}`, true},
		{`{"Input":3}`, false}, {`{"input":3.0}`, false}, {`{"input":"3"}`, false}, {`{"cost":{"x":1}}`, false},
		{`{"cost":5}`, false}, {`{"other":1,"input":2}`, false}, {`[]`, false},
		{`{"input":1,"cacheWrite":0,"reasoning":2,"totalTokens":3,"cost":{"total":1,"totalFromProvider":true}}`, true},
		{`{"input":1,"cost":{"total":1,"totalFromProvider":false},"cacheWrite1h":1,"reasoning":2}`, true},
		{`{"cost":{"totalFromProvider":1}}`, false},
	} {
		var s jsonx.Scanner
		s.Reset([]byte(c.json))
		var u Usage
		plain := DecodeUsage(&s, &u)
		s.End()
		if plain != c.plain || s.Err() != nil {
			t.Errorf("%s: plain %v (%v), want %v", c.json, plain, s.Err(), c.plain)
			continue
		}
		var want Usage
		if err := json.Unmarshal([]byte(c.json), &want); plain && (err != nil || u != want) {
			t.Errorf("%s: %+v, encoding/json %+v (%v)", c.json, u, want, err)
		}
	}
	var s jsonx.Scanner
	s.Reset([]byte(`{"input":1,`))
	if DecodeUsage(&s, &Usage{}) || s.Err() == nil {
		t.Errorf("a cut usage object is no error: %v", s.Err())
	}
}

func TestUnmarshalContent(t *testing.T) {
	for _, c := range []struct {
		json     string
		isString bool
		n        int
		ok       bool
	}{
		{`"hi"`, true, 1, true}, {`[]`, false, 0, true}, {`null`, false, 0, true},
		{`[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"}]`, false, 2, true},
		{`[{"text":"a","type":"text"}]`, false, 1, true}, {`5`, false, 0, false}, {`{"type":"text"}`, false, 0, false},
	} {
		content, isString, err := UnmarshalContent([]byte(c.json))
		if isString != c.isString || len(content) != c.n || (err == nil) != c.ok {
			t.Errorf("%s: %v %v %v", c.json, content, isString, err)
		}
	}
}

// TestDecoderReuseWholeCorpus: a decoder reading every message of the corpus, twice (its scratch
// blocks and shared names in use), gives what a decoder of one message gives, with content slices of
// exactly their number of blocks and repeated names shared.
func TestDecoderReuseWholeCorpus(t *testing.T) {
	var d MessageDecoder
	models := map[string]string{}
	for round := range 2 {
		for i, s := range messageCorpus {
			got := d.decodeFast([]byte(s))
			if got == nil {
				continue // encoding/json's, as for a decoder of one message
			}
			want, err := UnmarshalMessage([]byte(s))
			if err != nil {
				t.Fatalf("round %d, message %d: the single pass took what UnmarshalMessage refuses: %v", round, i, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, message %d: %#v\nwant %#v", round, i, got, want)
			}
			var content []Content
			switch m := got.(type) {
			case *UserMessage:
				content = m.Content
			case *AssistantMessage:
				content = m.Content
				if m.Model == "" {
					break
				}
				if first, ok := models[m.Model]; ok && unsafe.StringData(first) != unsafe.StringData(m.Model) {
					t.Errorf("round %d, message %d: model %q not shared with the earlier messages'", round, i, m.Model)
				}
				models[m.Model] = m.Model
			case *ToolResultMessage:
				content = m.Content
			}
			if cap(content) != len(content) {
				t.Errorf("round %d, message %d: %d content blocks in a slice of room %d", round, i, len(content), cap(content))
			}
		}
	}
}
