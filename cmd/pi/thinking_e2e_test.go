package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A thinking level named on the command line is used for a resumed session without being written over
// the session's own level (pi 0.73.1 applies it to the agent only), and a session without a level gets
// the command line's.
func TestCommandLineThinkingLevelOnAResumedSession(t *testing.T) {
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",`+
		`"models":[{"id":"mock-reasoner","reasoning":true}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(p.dir, "resumed.jsonl")
	session := `{"type":"session","version":3,"id":"01a22a6a-0a27-74e0-9000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"` + p.dir + `"}
{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-01-02T03:04:05.001Z","provider":"mock","modelId":"mock-reasoner"}
{"type":"thinking_level_change","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-02T03:04:05.002Z","thinkingLevel":"high"}
{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1767323046000}}
{"type":"message","id":"aaaa0004","parentId":"aaaa0003","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"openai-completions","provider":"mock","model":"mock-reasoner","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767323047000}}
`
	if err := os.WriteFile(file, []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("mock-reasoner", "ok"))
	r := p.run("", "--session", file, "--model", "mock/mock-reasoner", "--thinking", "low", "-p", "next")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body, err := p.server.Requests()[0].JSON()
	if err != nil {
		t.Fatal(err)
	}
	if body["reasoning_effort"] != "low" {
		t.Errorf("reasoning_effort = %v, want the command line's low", body["reasoning_effort"])
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), session) {
		t.Fatalf("the session's lines were rewritten")
	}
	if added := string(data[len(session):]); strings.Contains(added, "thinking_level_change") {
		t.Errorf("a thinking_level_change was recorded over the session's level:\n%s", added)
	}
}
