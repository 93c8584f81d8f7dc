package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A models.json provider's headers (a literal, an environment variable's value) and its authHeader
// reach every request, as pi sends them.
func TestModelsJSONHeadersReachTheRequest(t *testing.T) {
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"k-1",`+
		`"authHeader":true,"headers":{"X-Literal":"plain value","X-From-Env":"HOME"},"models":[{"id":"mock-model"}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	r := p.run("", "--model", "mock/mock-model", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	h := p.server.Requests()[0].Header
	if h.Get("X-Literal") != "plain value" || h.Get("X-From-Env") != filepath.Dir(p.agentDir) || h.Get("Authorization") != "Bearer k-1" {
		t.Errorf("headers: X-Literal %q, X-From-Env %q, Authorization %q", h.Get("X-Literal"), h.Get("X-From-Env"), h.Get("Authorization"))
	}
}
