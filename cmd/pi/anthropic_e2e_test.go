package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/anthropictest"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// anthropicProject is a project whose models.json points the built-in anthropic provider at a
// scripted Anthropic server, with only ANTHROPIC_API_KEY set.
func anthropicProject(t *testing.T) (*project, *anthropictest.Server) {
	p := newProject(t)
	srv := anthropictest.New()
	t.Cleanup(srv.Close)
	models := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, srv.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	p.env = append(p.env, "ANTHROPIC_API_KEY=sk-ant-e2e")
	return p, srv
}

func TestAnthropicKeyAloneUsesPisDefaultClaude(t *testing.T) {
	p, srv := anthropicProject(t)
	srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{
		Usage:  &anthropictest.Usage{Input: 12, Output: 5, CacheRead: 3000, CacheWrite: 40},
		Blocks: []anthropictest.Block{anthropictest.Thinking("sig-e2e", "hm"), anthropictest.Text("Hello from Claude.")}}})
	res := p.run("", "-p", "hi")
	if res.code != 0 || strings.TrimSpace(res.stdout) != "Hello from Claude." {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", res.code, res.stdout, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" || reqs[0].Header.Get("X-Api-Key") != "sk-ant-e2e" {
		t.Fatalf("requests %+v", reqs)
	}
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqs[0].Body, &body)
	if body.Model != "claude-opus-5-5" {
		t.Errorf("model %q, want pi 1.6's default claude-opus-5-5", body.Model)
	}
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions %v", files)
	}
	data, _ := os.ReadFile(files[0])
	session := string(data)
	for _, want := range []string{`"api":"anthropic-messages"`, `"provider":"anthropic"`, `"thinkingSignature":"sig-e2e"`,
		`"cacheRead":3000`, `"cacheWrite":40`, `"providerThinkingLevel":"medium"`} {
		if !strings.Contains(session, want) {
			t.Errorf("session lacks %s:\n%s", want, session)
		}
	}
}

func TestAnthropicAuthTokenIsSentAsBearer(t *testing.T) {
	p, srv := anthropicProject(t)
	p.env = append(p.env, "ANTHROPIC_AUTH_TOKEN=tok-e2e")
	res := p.run("", "-p", "--model", "anthropic/claude-sonnet-4-5", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer tok-e2e" || h.Get("X-Api-Key") != "" {
		t.Errorf("auth headers: Authorization %q, X-Api-Key %q", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
}

func TestUnsupportedModelsJSONAPIIsReportedOnce(t *testing.T) {
	p := newProject(t)
	path := filepath.Join(p.agentDir, "models.json")
	models := `{"providers":{"bedrock-proxy":{"baseUrl":"http://127.0.0.1:1","apiKey":"k","api":"bedrock-converse-stream",` +
		`"models":[{"id":"a"},{"id":"b"}]}}}`
	if err := os.WriteFile(path, []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	res := p.run("", "--list-models")
	want := path + `: provider bedrock-proxy: api "bedrock-converse-stream" is not supported by pi-go`
	if strings.Count(res.stderr, want) != 1 {
		t.Errorf("stderr %q, want once %q", res.stderr, want)
	}
}

func TestListModelsAsksTheBaseURLServer(t *testing.T) {
	p := newProject(t)
	srv := anthropictest.New() // serves GET /v1/models in the OpenAI list shape
	t.Cleanup(srv.Close)
	res := p.run("", "--list-models", "--base-url", srv.URL+"/v1")
	if res.code != 0 || !strings.Contains(res.stdout, "custom    claude-test-1") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Method != "GET" || r[0].Path != "/v1/models" {
		t.Errorf("requests %+v", r)
	}
}

func TestBaseURLThinkingSendsReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"flag", []string{"--model", "test-model", "--thinking", "high"}, `"reasoning_effort":"high"`},
		{"suffix", []string{"--model", "test-model:low"}, `"reasoning_effort":"low"`},
		{"not asked", []string{"--model", "test-model"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
			res := p.run("", append([]string{"-p", "--base-url", p.server.URL}, append(tc.args, "hi")...)...)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			body := string(p.server.Requests()[0].Body)
			if tc.want == "" && strings.Contains(body, "reasoning_effort") || tc.want != "" && !strings.Contains(body, tc.want) {
				t.Errorf("body %s, want %q", body, tc.want)
			}
		})
	}
}
