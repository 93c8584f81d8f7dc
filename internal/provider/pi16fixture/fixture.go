// Package pi16fixture reads the runs that scripts/interop/record-apis recorded from pi 1.6.0 (a session
// file and the request bodies pi sent), so that an API package's tests can rebuild the request pi-go
// would send at each step of the same conversation and compare it with pi's. Test support only; it
// knows the session file's entry shapes and the provider vocabulary.
package pi16fixture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pi-go/pi-go/internal/provider"
)

// Run is one recorded pi run.
type Run struct {
	SessionID string
	Thinking  provider.ThinkingLevel
	// Messages are the session's messages in order, system messages included.
	Messages []provider.Message
	// Requests are the bodies pi sent, in order.
	Requests [][]byte
}

// Load reads dir (session.jsonl and requests/NNN.json).
func Load(dir string) (*Run, error) {
	f, err := os.Open(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run := &Run{Thinking: provider.ThinkingOff}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type          string          `json:"type"`
			ID            string          `json:"id"`
			ThinkingLevel string          `json:"thinkingLevel"`
			Message       json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		switch e.Type {
		case "session":
			run.SessionID = e.ID
		case "thinking_level_change":
			run.Thinking = provider.ThinkingLevel(e.ThinkingLevel)
		case "message":
			m, err := provider.UnmarshalMessage(e.Message)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
			run.Messages = append(run.Messages, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "requests", "*.json"))
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		run.Requests = append(run.Requests, b)
	}
	return run, nil
}

// Request is the request of step n (0-based): the transcript before the run's n-th assistant reply,
// with the system prompt and tools its system messages replay to.
func (r *Run) Request(m *provider.Model, n int) *provider.Request {
	var before []provider.Message
	seen := 0
	for _, msg := range r.Messages {
		if _, ok := msg.(*provider.AssistantMessage); ok {
			if seen == n {
				break
			}
			seen++
		}
		before = append(before, msg)
	}
	prompt, tools, rest := provider.CollapseSystemMessages(before)
	return &provider.Request{Model: m, SystemPrompt: prompt, Tools: tools, Messages: rest,
		Options: provider.StreamOptions{APIKey: "mock-key", Reasoning: r.Thinking, SessionID: r.SessionID}}
}

// Reply is the run's n-th assistant reply (0-based).
func (r *Run) Reply(n int) *provider.AssistantMessage {
	seen := 0
	for _, msg := range r.Messages {
		if a, ok := msg.(*provider.AssistantMessage); ok {
			if seen == n {
				return a
			}
			seen++
		}
	}
	return nil
}

// Canonical re-encodes JSON with sorted keys and no whitespace, to compare bodies whose member order
// may legitimately differ.
func Canonical(b []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}
