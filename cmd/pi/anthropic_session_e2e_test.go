package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// TestPIClaudeSessionContinuesWithTheSameRequest opens the session pi 1.6.0 wrote in a Claude tool run
// (testdata/pi16/anthropic/tool-run) and sends the next prompt pi sent when it continued that session
// itself: the request body must be pi's, byte for byte (its fourth recorded request).
func TestPIClaudeSessionContinuesWithTheSameRequest(t *testing.T) {
	p, srv := anthropicProject(t)
	session, err := os.ReadFile("../../testdata/pi16/anthropic/tool-run/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// pi's session as it was before it continued: up to its third answer.
	lines := strings.SplitAfter(string(session), "\n")
	var before []string
	answers := 0
	for _, l := range lines {
		if strings.Contains(l, `"role":"user"`) && answers == 3 {
			break
		}
		if strings.Contains(l, `"role":"assistant"`) {
			answers++
		}
		before = append(before, l)
	}
	path := filepath.Join(p.dir, "pi-session.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(before, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{Blocks: []anthropictest.Block{anthropictest.Text("Nothing else to add.")}}})
	res := p.run("", "-p", "--session", path, "--model", "anthropic/claude-sonnet-4-5", "anything else?")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	want, err := os.ReadFile("../../testdata/pi16/anthropic/tool-run/requests/004.json")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	// pi-go has no installed docs to point at, so its system prompt has no <docs> section (see
	// withoutDocsPrompt); everything else is pi's.
	wantBody := compact.String()
	if start, end := strings.Index(wantBody, `\n\n<docs>\n`), strings.Index(wantBody, `\n</docs>`); start >= 0 && end > start {
		wantBody = wantBody[:start] + wantBody[end+len(`\n</docs>`):]
	}
	got := srv.Requests()[0].Body
	if string(got) != wantBody {
		t.Errorf("pi-go's request differs from pi's:\npi-go %s\npi    %s", got, wantBody)
	}
}
