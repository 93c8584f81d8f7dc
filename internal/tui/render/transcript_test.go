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

// System messages (the prompt and tool declarations, pi 1.6) are not chat content: a transcript
// renders as if they were not there, without an empty block where they are.
func TestTranscriptLeavesSystemMessagesOut(t *testing.T) {
	msgs := loadSessionMessages(t, "testdata/pi-session.jsonl")
	sys := provider.NewSystemMessage(1)
	sys.Sections = []provider.PromptSection{{Name: "preamble", Text: "You are pi."}}
	sys.ToolsAdded = []provider.ToolDefinition{{Name: "read", Description: "Read", Parameters: json.RawMessage(`{}`)}}
	with := append([]provider.Message{sys}, msgs[:2]...)
	with = append(with, provider.NewSystemMessage(2))
	with = append(with, msgs[2:]...)
	r := newGoldenRenderer()
	got, want := r.Transcript(with, TranscriptOptions{}, 80), r.Transcript(msgs, TranscriptOptions{}, 80)
	if len(got) != len(want) {
		t.Fatalf("%d lines with system messages, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
	if lines := r.Message(sys, nil, TranscriptOptions{}, 80); lines != nil {
		t.Errorf("a system message rendered %q", lines)
	}
}
