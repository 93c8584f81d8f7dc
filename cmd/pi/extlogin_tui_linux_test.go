package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// /login in the terminal with pi 1.6.0's runner: the extension's login asks for a method (a select
// dialog), shows its URL, asks for the code, and the credential lands in auth.json in pi's shape
// beside the other entries; the next prompt sends the new token. A second login is cancelled with
// Escape while it polls for a device code: the extension's abort signal cancels its request. /logout
// removes the login.
func TestExtensionLoginInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	p, ts, expect := oauthProject(t)
	p.writeAuth(map[string]any{"other": map[string]any{"type": "api_key", "key": "k-other"}})
	expect("Bearer acc-1")
	pane := startTmuxPi(t, p, "-e", "corp.ts", "--no-session", "--tui-mode", "regular", "--model", "corp/corp-chat")
	pane.waitFor("the session", func(s string) bool { return strings.Contains(s, "corp-chat") })

	pane.keys("-l", "/login")
	pane.keys("Enter")
	pane.waitFor("the provider list", func(s string) bool {
		return strings.Contains(s, "Select provider to configure:") && strings.Contains(s, "Corp SSO") && strings.Contains(s, "Native SSO")
	})
	pane.keys("Enter") // Corp SSO comes first by name
	pane.waitFor("the method dialog", func(s string) bool {
		return strings.Contains(s, "How do you want to sign in?") && strings.Contains(s, "Paste a code")
	})
	pane.keys("Enter")
	pane.waitFor("the URL and the code prompt", func(s string) bool {
		return strings.Contains(s, ts.URL+"/authorize?client=pi") && strings.Contains(s, "Sign in, then paste the code.") &&
			strings.Contains(s, "Paste the authorization code:")
	})
	pane.keys("-l", "good-code")
	pane.keys("Enter")
	authPath := filepath.Join(p.agentDir, "auth.json")
	pane.waitFor("the login", func(s string) bool {
		return strings.Contains(strings.ReplaceAll(s, "\n", ""), "Logged in to Corp SSO. Credentials saved to "+authPath)
	})
	auth := p.readAuth()
	c := auth["corp"]
	if c["type"] != "oauth" || c["access"] != "acc-1" || c["refresh"] != "ref-1" || c["account"] != "ada" {
		t.Errorf("stored login %v", c)
	}
	if exp, _ := c["expires"].(float64); time.UnixMilli(int64(exp)).Before(time.Now().Add(50 * time.Minute)) {
		t.Errorf("expires %v", c["expires"])
	}
	if auth["other"]["key"] != "k-other" {
		t.Errorf("other entry lost: %v", auth)
	}
	if info, _ := os.Stat(authPath); info.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", info.Mode().Perm())
	}

	pane.keys("-l", "hi")
	pane.keys("Enter")
	pane.waitFor("the answer", func(s string) bool { return strings.Contains(s, "Authorized answer.") })

	// Cancel: the device-code login polls with the abort signal; Escape aborts it.
	pane.keys("-l", "/login corp")
	pane.keys("Enter")
	pane.waitFor("the method dialog", func(s string) bool { return strings.Contains(s, "Device code") })
	pane.keys("Down")
	pane.keys("Enter")
	pane.waitFor("the device code", func(s string) bool {
		return strings.Contains(s, "Open "+ts.URL+"/device and enter code: WXYZ-1234")
	})
	select {
	case <-ts.polling:
	case <-time.After(20 * time.Second):
		t.Fatal("the login never polled")
	}
	pane.keys("Escape")
	pane.waitFor("the cancellation", func(s string) bool { return strings.Contains(s, "Login cancelled.") })
	select {
	case <-ts.cancelled:
	case <-time.After(20 * time.Second):
		t.Fatal("the extension's poll was not aborted")
	}
	if got := p.readAuth()["corp"]["access"]; got != "acc-1" {
		t.Errorf("a cancelled login changed the stored one: %v", got)
	}

	pane.keys("-l", "/logout")
	pane.keys("Enter")
	pane.waitFor("the logout list", func(s string) bool {
		return strings.Contains(s, "Select provider to logout:") && strings.Contains(s, "Corp SSO") && strings.Contains(s, "other")
	})
	pane.keys("Down") // "other" comes first, in the file's order
	pane.keys("Enter")
	pane.waitFor("the logout", func(s string) bool { return strings.Contains(s, "Logged out of Corp SSO") })
	auth = p.readAuth()
	if _, ok := auth["corp"]; ok || auth["other"]["key"] != "k-other" {
		t.Errorf("after /logout: %v", auth)
	}
}

// lateLoginExtension registers its OAuth provider only once LOGIN_GATE exists: pi waits for an
// async factory, so the extensions are still loading until the test says otherwise.
const lateLoginExtension = `
import fs from "node:fs";
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
export default async function (pi) {
	while (!fs.existsSync(process.env.LOGIN_GATE)) await new Promise((resolve) => setTimeout(resolve, 10));
	pi.registerProvider("late", {
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		oauth: {
			name: "Late SSO",
			login: async () => ({ refresh: "r", access: "a", expires: Date.now() + 3600000 }),
			refreshToken: async (credentials) => credentials,
			getApiKey: (credentials) => credentials.access,
		},
		models: [{ id: "late-chat", name: "Late", reasoning: false, input: ["text"], cost: zero, contextWindow: 8000, maxTokens: 512 }],
	});
}
`

// /login typed while the extensions are still loading waits for them and then lists their logins,
// rather than saying there are none.
func TestExtensionLoginWaitsForLoadingExtensions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	p, _ := providerProject(t)
	p.write("late.ts", lateLoginExtension)
	gate := filepath.Join(t.TempDir(), "gate")
	p.env = append(p.env, "LOGIN_GATE="+gate)
	pane := startTmuxPi(t, p, "-e", "late.ts", "--no-session", "--tui-mode", "regular", "--provider", "demo")
	pane.waitFor("the first frame", func(s string) bool { return strings.Contains(s, "pi-go-demo") })
	pane.keys("-l", "/login")
	pane.keys("Enter")
	pane.waitFor("the wait", func(s string) bool { return strings.Contains(s, "Waiting for the extensions to load…") })
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pane.waitFor("the provider list", func(s string) bool {
		return strings.Contains(s, "Select provider to configure:") && strings.Contains(s, "Late SSO")
	})
}
