package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A models.json provider's headers (a literal, "$NAME" interpolated, a bare variable name sent as the
// text it is) and its authHeader reach every request, as pi 1.6 sends them; the bare name is
// warned about once, naming the file and the key.
func TestModelsJSONHeadersReachTheRequest(t *testing.T) {
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"k-1",`+
		`"authHeader":true,"headers":{"X-Literal":"plain value","X-From-Env":"$HOME","X-Bare":"HOME"},"models":[{"id":"mock-model"}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	r := p.run("", "--model", "mock/mock-model", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	h := p.server.Requests()[0].Header
	if h.Get("X-Literal") != "plain value" || h.Get("X-From-Env") != filepath.Dir(p.agentDir) || h.Get("X-Bare") != "HOME" ||
		h.Get("Authorization") != "Bearer k-1" {
		t.Errorf("headers: X-Literal %q, X-From-Env %q, X-Bare %q, Authorization %q", h.Get("X-Literal"), h.Get("X-From-Env"),
			h.Get("X-Bare"), h.Get("Authorization"))
	}
	want := "Warning: " + filepath.Join(p.agentDir, "models.json") + `: providers.mock.headers.X-Bare is the literal text "HOME"; ` +
		`pi 1.6 no longer reads environment variables by bare name: write "$HOME"` + "\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// models.json apiKey values resolve as in pi 1.6 (the interop cases "models.json apiKey a bare
// environment variable name", "$NAME" and "${NAME} inside text"), and models.json's key wins over
// the provider's own environment variable.
func TestModelsJSONAPIKeyResolution(t *testing.T) {
	for _, tc := range []struct {
		apiKey, wantAuth, wantWarning string
	}{
		{"MOCK_KEY_VAR", "Bearer MOCK_KEY_VAR", "providers.mock.apiKey is the literal text \"MOCK_KEY_VAR\""},
		{"$MOCK_KEY_VAR", "Bearer key-from-env", ""},
		{"sk-${MOCK_KEY_VAR}-x", "Bearer sk-key-from-env-x", ""},
		{"$$MOCK_KEY_VAR", "Bearer $MOCK_KEY_VAR", ""},
	} {
		p := newProject(t)
		p.env = []string{"MOCK_KEY_VAR=key-from-env"}
		models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":%q,"models":[{"id":"mock-model"}]}}}`,
			p.server.URL, tc.apiKey)
		if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
			t.Fatal(err)
		}
		p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
		r := p.run("", "--model", "mock/mock-model", "-p", "hi")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.apiKey, r.code, r.stderr)
		}
		if got := p.server.Requests()[0].Header.Get("Authorization"); got != tc.wantAuth {
			t.Errorf("%s: Authorization %q, want %q", tc.apiKey, got, tc.wantAuth)
		}
		if tc.wantWarning == "" && r.stderr != "" || !strings.Contains(r.stderr, tc.wantWarning) || strings.Count(r.stderr, "\n") > 1 {
			t.Errorf("%s: stderr %q, want one warning %q", tc.apiKey, r.stderr, tc.wantWarning)
		}
	}

	// A variable that is not set leaves the provider without a key: nothing is sent.
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"$UNSET_KEY_VAR","models":[{"id":"mock-model"}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.run("", "--model", "mock/mock-model", "-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "UNSET_KEY_VAR is not set") || len(p.server.Requests()) != 0 {
		t.Errorf("unset variable: exit %d, stderr %q, %d requests", r.code, r.stderr, len(p.server.Requests()))
	}
}
