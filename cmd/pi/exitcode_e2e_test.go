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
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "agent_end" || len(last.Messages) == 0 {
		t.Fatalf("last event %s", lines[len(lines)-1])
	}
	if m := last.Messages[len(last.Messages)-1]; m.StopReason != "error" || !strings.Contains(m.ErrorMessage, "Incorrect API key provided") {
		t.Errorf("the last event does not say why: %s", lines[len(lines)-1])
	}

	// A successful run still exits 0.
	p.server.Enqueue(openaitest.TextReply("test-model", "fine"))
	if r := p.run("", append(p.baseArgs(), "--mode", "json", "hi")...); r.code != 0 {
		t.Errorf("success: exit %d, stderr %q", r.code, r.stderr)
	}
}
