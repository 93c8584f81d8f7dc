package render

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// loadSessionMessages reads the messages of a pi session file (testdata/pi-session.jsonl is one pi
// 0.73.1 wrote).
func loadSessionMessages(t *testing.T, path string) []provider.Message {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []provider.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
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
		m, err := provider.UnmarshalMessage(entry.Message)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs
}

func TestGoldenTranscript(t *testing.T) {
	msgs := loadSessionMessages(t, "testdata/pi-session.jsonl")
	aborted := &provider.AssistantMessage{Content: []provider.Content{
		provider.ToolCallContent("call_x", "read", json.RawMessage(`{"path":"big.txt"}`)),
	}, StopReason: provider.StopReasonAborted, ErrorMessage: "Request was aborted"}
	runGolden(t, []goldenCase{
		{"transcript_pi_session", func(r *Renderer, w int) []string { return r.Transcript(msgs, TranscriptOptions{}, w) }},
		{"transcript_aborted_call", func(r *Renderer, w int) []string {
			return r.Transcript([]provider.Message{aborted}, TranscriptOptions{}, w)
		}},
	})
}
