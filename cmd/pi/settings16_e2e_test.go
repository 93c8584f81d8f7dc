package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The global httpProxy setting sends pi-go's requests through the proxy (pi 1.6); a proxy in the
// environment wins over it, and a project's settings.json cannot set one.
func TestHTTPProxySetting(t *testing.T) {
	// The scripted server is the proxy: a proxied request arrives with the absolute URL of a host
	// that does not exist, so an answer proves the proxy carried it.
	setup := func(globalSettings, projectSettings string) *project {
		p := newProject(t)
		models := `{"providers":{"mock":{"baseUrl":"http://pi-mock.invalid/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-model"}]}}}`
		if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(globalSettings), 0o644); err != nil {
			t.Fatal(err)
		}
		if projectSettings != "" {
			p.write(".pi/settings.json", projectSettings)
		}
		return p
	}

	p := setup(`{"retry": {"enabled": false}}`, "")
	settingsProxy(t, p)
	p.server.Enqueue(openaitest.TextReply("mock-model", "via the proxy"))
	if r := p.run("", "--model", "mock/mock-model", "-p", "hi"); r.code != 0 || r.stdout != "via the proxy\n" {
		t.Fatalf("httpProxy: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// HTTP_PROXY in the environment wins over the setting (which points at nothing).
	p = setup(`{"httpProxy": "http://127.0.0.1:1", "retry": {"enabled": false}}`, "")
	p.env = []string{"HTTP_PROXY=" + p.server.URL}
	p.server.Enqueue(openaitest.TextReply("mock-model", "via the environment's proxy"))
	if r := p.run("", "--model", "mock/mock-model", "-p", "hi"); r.code != 0 || r.stdout != "via the environment's proxy\n" {
		t.Fatalf("HTTP_PROXY: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// A trusted project's settings.json still cannot set a proxy.
	p = setup(`{"retry": {"enabled": false}}`, `{"httpProxy": "http://127.0.0.1:1"}`)
	r := p.run("", "--approve", "--model", "mock/mock-model", "-p", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "httpProxy can only be set in") || len(p.server.Requests()) != 0 {
		t.Fatalf("project httpProxy: exit %d, stderr %q", r.code, r.stderr)
	}
}

// settingsProxy points the project's global httpProxy at its scripted server.
func settingsProxy(t *testing.T, p *project) {
	t.Helper()
	s := fmt.Sprintf(`{"httpProxy": %q, "retry": {"enabled": false}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
