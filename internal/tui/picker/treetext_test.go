package picker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFormatToolCall(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"read", `{"path":"a.go","offset":10,"limit":5}`, "[read: a.go:10-14]"},
		{"read", `{"path":"a.go","limit":5}`, "[read: a.go:1-5]"},
		{"write", `{"path":"b.go","content":"x"}`, "[write: b.go]"},
		{"bash", `{"command":"echo one\necho two"}`, "[bash: echo one echo two]"},
		{"bash", `{"command":"` + strings.Repeat("x", 60) + `"}`, "[bash: " + strings.Repeat("x", 50) + "...]"},
		{"grep", `{"pattern":"TODO"}`, "[grep: /TODO/ in .]"},
		{"find", `{"pattern":"*.go","path":"src"}`, "[find: *.go in src]"},
		{"ls", `{}`, "[ls: .]"},
		{"custom", `{"a":1}`, `[custom: {"a":1}]`},
	} {
		if got := formatToolCall(c.name, json.RawMessage(c.args)); got != c.want {
			t.Errorf("formatToolCall(%s, %s) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

func TestFormatLabelTime(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for ts, want := range map[string]string{
		"2026-03-10T09:05:00.000Z": "09:05",
		"2026-01-02T09:05:00.000Z": "1/2 09:05",
		"2025-12-31T23:59:00.000Z": "25/12/31 23:59",
		"garbage":                  "",
	} {
		if got := formatLabelTime(ts, now); got != want {
			t.Errorf("formatLabelTime(%s) = %q, want %q", ts, got, want)
		}
	}
}
