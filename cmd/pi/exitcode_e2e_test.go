package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// TestJSONModeExitsOneWhenTheRunFails: a failed run exits 1 in --mode json as in -p; the last event
// on stdout still says why, and stdout stays JSON lines only.
func TestJSONModeExitsOneWhenTheRunFails(t *testing.T) {
	p := newProject(t)
	p.server.Enqueue(openaitest.ErrorResponse(401, "Incorrect API key provided"))
	r := p.run("", append(p.baseArgs(), "--mode", "json", "hi")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "Incorrect API key provided") {
		t.Errorf("stderr %q does not say why", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for i, line := range lines {
		if !json.Valid([]byte(line)) {
			t.Fatalf("stdout line %d is not JSON: %q", i+1, line)
		}
	}
	var last struct {
		Type     string `json:"type"`
		Messages []struct {
			StopReason   string `json:"stopReason"`
			ErrorMessage string `json:"errorMessage"`
		} `json:"messages"`
	}
	// pi 1.6 ends with agent_settled; the run's outcome is in the agent_end before it.
	if lines[len(lines)-1] != `{"type":"agent_settled","aborted":false}` {
		t.Fatalf("last event %s", lines[len(lines)-1])
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "agent_end" || len(last.Messages) == 0 {
		t.Fatalf("agent_end expected before agent_settled: %s", lines[len(lines)-2])
	}
	if m := last.Messages[len(last.Messages)-1]; m.StopReason != "error" || !strings.Contains(m.ErrorMessage, "Incorrect API key provided") {
		t.Errorf("agent_end does not say why: %s", lines[len(lines)-2])
	}

	// A successful run still exits 0.
	p.server.Enqueue(openaitest.TextReply("test-model", "fine"))
	if r := p.run("", append(p.baseArgs(), "--mode", "json", "hi")...); r.code != 0 {
		t.Errorf("success: exit %d, stderr %q", r.code, r.stderr)
	}
}
