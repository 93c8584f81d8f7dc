package provider

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkEncoder compares every event of a stream (and the final message) through one encoder with
// MarshalJSON.
type encoderCheck struct {
	t   testing.TB
	enc StreamEncoder
	buf []byte
	n   int
}

func (c *encoderCheck) event(e *AssistantEvent) {
	c.t.Helper()
	want, werr := e.MarshalJSON()
	var err error
	c.buf, err = c.enc.AppendEvent(c.buf[:0], e)
	if (err != nil) != (werr != nil) {
		c.t.Fatalf("event %d: error %v, MarshalJSON's %v", c.n, err, werr)
	}
	if werr == nil && string(c.buf) != string(want) {
		c.t.Fatalf("event %d (%s):\n got %s\nwant %s", c.n, e.Type, c.buf, want)
	}
	c.n++
}

func (c *encoderCheck) message(m *AssistantMessage) {
	c.t.Helper()
	want, werr := m.MarshalJSON()
	got, err := c.enc.AppendAssistant([]byte("prefix"), m)
	if (err != nil) != (werr != nil) {
		c.t.Fatalf("message: error %v, MarshalJSON's %v", err, werr)
	}
	if werr == nil && string(got) != "prefix"+string(want) {
		c.t.Fatalf("message:\n got %s\nwant prefix%s", got, want)
	}
}

func TestStreamEncoderMatchesMarshalJSON(t *testing.T) {
	c := &encoderCheck{t: t}
	m := &Model{ID: "m", Provider: "p"}
	long := strings.Repeat("ab\"c\\d\n\u2028é", 20)
	// Two messages through the same encoder: the second must not reuse the first one's text.
	for round := range 2 {
		sb := NewStreamBuilder(m, c.event)
		sb.Start()
		sb.Thinking(long, "reasoning_content")
		sb.Thinking("more", "reasoning_content")
		for i := range 300 {
			sb.Text(string(rune('a' + (i+round)%26)))
		}
		// A euro sign split across deltas, invalid UTF-8, control characters, and a split at the end.
		for _, d := range []string{"\xe2\x82", "\xac", "\xff", "\x01", "\t\"", strings.Repeat("x", 70), "\xf0\x9f", "\x98", "\x80", "\xc3"} {
			sb.Text(d)
		}
		idx := 0
		sb.ToolCall(&idx, "call_1", "write", `{"path": "a.txt",`)
		for range 100 {
			sb.ToolCall(&idx, "", "", ` "content": "\u00e9\n",`)
		}
		sb.ToolCall(&idx, "", "", ` "z": 1}`)
		sb.SetResponseModel("served")
		sb.SetUsage(Usage{Input: 10, Output: 20, TotalTokens: 30, Cost: Cost{Input: 0.1, Total: 0.1}})
		sb.SetStopReason(StopReasonToolUse, "")
		final := sb.Finish()
		c.message(final)
	}
	if c.n < 800 {
		t.Fatalf("only %d events", c.n)
	}
	// Messages that did not come from a builder: extra fields, images, error messages, empty content.
	c.message(&AssistantMessage{Content: []Content{{Type: ContentText, Text: long, Extra: map[string]json.RawMessage{"x": json.RawMessage(`1`)}},
		ImageContent("AAAA", "image/png"), {Type: ContentThinking, Thinking: long, Redacted: true}},
		StopReason: StopReasonError, ErrorMessage: "boom", Extra: map[string]json.RawMessage{"k": json.RawMessage(`{"a": 1}`)}})
	c.message(&AssistantMessage{})
	c.message(&AssistantMessage{Content: []Content{{Type: ContentToolCall, ID: "x", Arguments: json.RawMessage(`{"a": [1, 2]}`)}}})
	// Invalid arguments fail as MarshalJSON does.
	c.message(&AssistantMessage{Content: []Content{{Type: ContentToolCall, ID: "x", Arguments: json.RawMessage(`{"a":`)}}})
}

func TestStableCut(t *testing.T) {
	for s, want := range map[string]int{
		"": 0, "abc": 3, "é": 2, "a\xc3": 1, "a\xe2\x82": 1, "a\xe2\x82\xac": 4, "\xff": 1, "a\x80": 2, "\xf0\x9f\x98": 0,
		"\xe0\x80": 2, // not a possible start of a valid rune: escaped as it is
	} {
		if got := stableCut(s); got != want {
			t.Errorf("stableCut(%q) = %d, want %d", s, got, want)
		}
	}
}

// FuzzStreamEncoder streams arbitrary deltas (the fuzz input cut at zero bytes) into text, thinking and
// tool-call blocks and compares every event with MarshalJSON.
func FuzzStreamEncoder(f *testing.F) {
	f.Add([]byte("hello\x00 world\x00\xe2\x82\x00\xac\x00" + strings.Repeat("y", 80)))
	f.Add([]byte("\xf0\x00\x9f\x00\x98\x00\x80\x00\xc3\x00\xa9"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &encoderCheck{t: t}
		sb := NewStreamBuilder(&Model{ID: "m"}, c.event)
		sb.Start()
		idx := 0
		for i, d := range strings.Split(string(data), "\x00") {
			switch i % 5 {
			case 0, 1:
				sb.Text(strings.Repeat(d, 1+i%3))
			case 2:
				sb.Thinking(d, "reasoning")
			case 3:
				sb.ToolCall(&idx, "id", "t", d)
			case 4:
				if !utf8.ValidString(d) {
					sb.Text(d)
				}
			}
		}
		c.message(sb.Finish())
	})
}
