package provider

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestMessagesRoundTrip decodes messages as pi 0.73.1 and pi 1.6.0 write them and writes them back
// byte for byte: the fields pi 1.6 added keep their places, absent ones stay absent.
func TestMessagesRoundTrip(t *testing.T) {
	cases := []struct{ name, json string }{
		{"0.73.1 assistant", `{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.30000000000000004}},"stopReason":"stop","timestamp":1767323050000,"responseId":"r1"}`},
		{"0.73.1 error", `{"role":"assistant","content":[],"api":"openai-completions","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1,"errorMessage":"boom"}`},
		{"1.6 OpenAI-compatible answer", `{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1034,"output":57,"cacheRead":200,"cacheWrite":0,"reasoning":12,"totalTokens":1291,"cost":{"input":0.003102,"output":0.0008550000000000001,"cacheRead":0.000059999999999999995,"cacheWrite":0,"total":0.004017000000000001,"totalFromProvider":false}},"stopReason":"toolUse","timestamp":1767323050000,"responseId":"chatcmpl-1","responseModel":"other","rawStopReason":"tool_calls","durationMs":1,"thinkingLevel":"off"}`},
		{"1.6 failed request", `{"role":"assistant","content":[],"api":"openai-completions","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1,"errorMessage":"500: boom","durationMs":27,"thinkingLevel":"high"}`},
		{"1.6 length with raw reason and error", `{"role":"assistant","content":[],"api":"openai-completions","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1,"responseId":"x","rawStopReason":"content_filter","errorMessage":"Provider finish_reason: content_filter","durationMs":0,"thinkingLevel":"max"}`},
		{"1.6 Anthropic usage", `{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"c","usage":{"input":5,"output":7,"cacheRead":0,"cacheWrite":3,"totalTokens":15,"cost":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0.5,"total":3.5,"totalFromProvider":false},"cacheWrite1h":2,"reasoning":4},"stopReason":"stop","timestamp":1,"responseId":"msg_1","rawStopReason":"end_turn","durationMs":9,"thinkingLevel":"medium"}`},
		{"1.6 Anthropic usage without thinking tokens", `{"role":"assistant","content":[],"api":"anthropic-messages","provider":"anthropic","model":"c","usage":{"input":5,"output":7,"cacheRead":0,"cacheWrite":3,"totalTokens":15,"cost":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0.5,"total":3.5,"totalFromProvider":true},"cacheWrite1h":0},"stopReason":"stop","timestamp":1}`},
		{"1.6 unknown fields stay", `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1,"durationMs":3,"thinkingLevel":"low","endTurn":true}`},
		{"1.6 tool result", `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"durationMs":1,"timestamp":1767323052000}`},
		{"1.6 tool result with details and usage", `{"role":"toolResult","toolCallId":"c1","toolName":"x","content":[],"details":{"a":1},"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"isError":true,"durationMs":12,"timestamp":5}`},
		{"0.73.1 tool result", `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"details":{},"isError":true,"timestamp":5}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := UnmarshalMessage([]byte(c.json))
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.json {
				t.Errorf("round trip:\n got %s\nwant %s", got, c.json)
			}
		})
	}
}

// TestMessagesOfPi16Session: every message of a session file pi 1.6.0 wrote comes back byte for byte
// (its system messages aside, which another part of pi-go reads).
func TestMessagesOfPi16Session(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "pi16", "json-tool-run", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var entry struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &entry); err != nil {
			t.Fatal(err)
		}
		if entry.Type != "message" {
			continue
		}
		var role struct{ Role string }
		json.Unmarshal(entry.Message, &role)
		if role.Role != RoleAssistant && role.Role != RoleToolResult && role.Role != RoleUser {
			continue
		}
		m, err := UnmarshalMessage(entry.Message)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(entry.Message) {
			t.Errorf("message %d:\n got %s\nwant %s", n, got, entry.Message)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Fatalf("%d messages compared, want 8", n)
	}
}

// TestUsageKeys: a priced usage has totalFromProvider; reasoning appears only where a provider set it.
func TestUsageKeys(t *testing.T) {
	var u Usage
	if got := string(u.appendJSON(nil)); got != `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}` {
		t.Errorf("zero usage: %s", got)
	}
	u = Usage{Input: 1000000, Output: 2, Reasoning: 1, Keys: UsageReasoning}
	u.TotalTokens = u.Input + u.Output
	u.CalculateCost(ModelCost{Input: 3, Output: 15})
	want := `{"input":1000000,"output":2,"cacheRead":0,"cacheWrite":0,"reasoning":1,"totalTokens":1000002,"cost":{"input":3,"output":0.00003,"cacheRead":0,"cacheWrite":0,"total":3.00003,"totalFromProvider":false}}`
	if got := string(u.appendJSON(nil)); got != want {
		t.Errorf("priced usage:\n got %s\nwant %s", got, want)
	}
	data, err := MarshalJS(struct{ U Usage }{u})
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"U":`+want+`}` {
		t.Errorf("through MarshalJS: %s", data)
	}
}
