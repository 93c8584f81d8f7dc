package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// oauthExtension registers "corp" in pi's legacy form with an OAuth login against the scripted
// token server (TOKEN_URL): the user picks a method (onSelect), then either pastes a code (onAuth,
// onProgress, onPrompt) or gets a device code (onDeviceCode) while the login polls with the abort
// signal. It also registers "native", a pi-ai Provider object (createProvider) whose API key comes
// from NATIVE_KEY or a stored credential, and whose OAuth token becomes the key.
const oauthExtension = `
import { createProvider, openAICompletionsApi } from "@earendil-works/pi-ai/compat";

const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const token = (path, params, signal) =>
	fetch(process.env.TOKEN_URL + path, { method: "POST", body: new URLSearchParams(params), signal });

async function grant(response) {
	if (!response.ok) throw new Error("token endpoint said " + response.status + ": " + (await response.text()));
	const d = await response.json();
	return { access: d.access_token, refresh: d.refresh_token, expires: Date.now() + d.expires_in * 1000, account: "ada" };
}

export default function (pi) {
	pi.registerProvider("corp", {
		name: "Corp AI",
		baseUrl: process.env.MODEL_URL,
		api: "openai-completions",
		models: [{ id: "corp-chat", name: "Corp Chat", reasoning: false, input: ["text"], cost: zero, contextWindow: 64000, maxTokens: 4096 }],
		oauth: {
			name: "Corp SSO",
			async login(callbacks) {
				const method = await callbacks.onSelect({
					message: "How do you want to sign in?",
					options: [{ id: "code", label: "Paste a code" }, { id: "device", label: "Device code" }],
				});
				if (method === "device") {
					callbacks.onDeviceCode({ userCode: "WXYZ-1234", verificationUri: process.env.TOKEN_URL + "/device" });
					return grant(await token("/device/poll", {}, callbacks.signal));
				}
				callbacks.onAuth({ url: process.env.TOKEN_URL + "/authorize?client=pi", instructions: "Sign in, then paste the code." });
				callbacks.onProgress?.("Waiting for the code");
				const code = await callbacks.onPrompt({ message: "Paste the authorization code:" });
				return grant(await token("/token", { grant_type: "authorization_code", code }, callbacks.signal));
			},
			async refreshToken(credentials, signal) {
				return grant(await token("/token", { grant_type: "refresh_token", refresh_token: credentials.refresh }, signal));
			},
			getApiKey: (credentials) => credentials.access,
		},
	});

	pi.registerProvider(createProvider({
		id: "native",
		name: "Native Server",
		baseUrl: process.env.MODEL_URL,
		auth: {
			apiKey: {
				name: "Native key",
				async resolve({ ctx, credential }) {
					const key = credential?.key ?? (await ctx.env("NATIVE_KEY"));
					return key ? { auth: { apiKey: key }, source: "native" } : undefined;
				},
			},
			oauth: {
				name: "Native SSO",
				async login() { throw new Error("not used"); },
				async refresh(credential) { return credential; },
				async toAuth(credential) { return { apiKey: "native-" + credential.access }; },
			},
		},
		models: [{ id: "native-chat", name: "Native Chat", api: "openai-completions", provider: "native", baseUrl: process.env.MODEL_URL,
			reasoning: false, input: ["text"], cost: zero, contextWindow: 64000, maxTokens: 4096 }],
		api: openAICompletionsApi(),
	}));
}
`

// tokenServer is the scripted OAuth server: "good-code" and the refresh token "ref-ok" (and each
// refresh token it issued) are granted, anything else refused; /device/poll waits until its request
// is cancelled and reports that.
type tokenServer struct {
	*httptest.Server
	mu        sync.Mutex
	issued    int
	refreshes int
	polling   chan struct{} // closed when a device poll arrives
	cancelled chan struct{} // closed when that poll's request was cancelled
}

func startTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{polling: make(chan struct{}), cancelled: make(chan struct{})}
	ts.Server = httptest.NewServer(http.HandlerFunc(ts.handle))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) grant(w http.ResponseWriter) {
	ts.mu.Lock()
	ts.issued++
	n := ts.issued
	ts.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":"acc-%d","refresh_token":"ref-%d","expires_in":3600}`, n, n)
}

func (ts *tokenServer) handle(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	switch {
	case r.URL.Path == "/device/poll":
		close(ts.polling)
		<-r.Context().Done()
		close(ts.cancelled)
	case r.URL.Path == "/token" && r.Form.Get("grant_type") == "authorization_code" && r.Form.Get("code") == "good-code":
		ts.grant(w)
	case r.URL.Path == "/token" && r.Form.Get("grant_type") == "refresh_token":
		ts.mu.Lock()
		ts.refreshes++
		ok := r.Form.Get("refresh_token") != "ref-revoked"
		ts.mu.Unlock()
		if !ok {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		ts.grant(w)
	default:
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
	}
}

func (ts *tokenServer) refreshCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.refreshes
}

// oauthProject is a project with the OAuth extension, pi 1.6.0's runner on Node 22 and the token
// server; the model server answers only requests with the Authorization it expects (want).
func oauthProject(t *testing.T) (*project, *tokenServer, func(want string)) {
	t.Helper()
	pi, why := findPi16()
	if why != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	p := newProject(t)
	ts := startTokenServer(t)
	p.write("corp.ts", oauthExtension)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg, "TOKEN_URL="+ts.URL, "MODEL_URL="+p.server.URL)
	expect := func(want string) {
		p.server.SetResponder(func(r *openaitest.Request) openaitest.Response {
			if got := r.Header.Get("Authorization"); got != want {
				return openaitest.ErrorResponse(http.StatusUnauthorized, "unexpected Authorization "+got)
			}
			return openaitest.TextReply("corp-chat", "Authorized answer.")
		})
	}
	return p, ts, expect
}

func (p *project) writeAuth(entries map[string]any) {
	p.t.Helper()
	data, _ := json.Marshal(entries)
	if err := os.WriteFile(filepath.Join(p.agentDir, "auth.json"), data, 0o600); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) readAuth() map[string]map[string]any {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.agentDir, "auth.json"))
	if err != nil {
		p.t.Fatal(err)
	}
	var out map[string]map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		p.t.Fatalf("auth.json: %v\n%s", err, data)
	}
	return out
}

func expiredLogin(refresh string) map[string]any {
	return map[string]any{"type": "oauth", "access": "stale-access", "refresh": refresh, "expires": time.Now().Add(-time.Hour).UnixMilli(), "account": "ada"}
}

// A stored login whose token expired is refreshed through the extension before the request; the
// request carries the new token and auth.json holds the new credential (other entries kept).
func TestExtensionOAuthRefreshesExpiredToken(t *testing.T) {
	p, ts, expect := oauthProject(t)
	p.writeAuth(map[string]any{"other": map[string]any{"type": "api_key", "key": "k-other"}, "corp": expiredLogin("ref-ok")})
	expect("Bearer acc-1")
	r := p.run("", "-e", "corp.ts", "--no-session", "--model", "corp/corp-chat", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Authorized answer.") {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if n := ts.refreshCount(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	auth := p.readAuth()
	if c := auth["corp"]; c["access"] != "acc-1" || c["refresh"] != "ref-1" || c["type"] != "oauth" || c["account"] != "ada" {
		t.Errorf("stored login %v", c)
	}
	if auth["other"]["key"] != "k-other" {
		t.Errorf("other entry lost: %v", auth)
	}
	if info, _ := os.Stat(filepath.Join(p.agentDir, "auth.json")); info.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", info.Mode().Perm())
	}
	if strings.Contains(r.stderr, "acc-1") || strings.Contains(r.stderr, "ref-1") {
		t.Errorf("a token was printed:\n%s", r.stderr)
	}

	// The refreshed token is valid for an hour: the next run uses it without refreshing.
	r = p.run("", "-e", "corp.ts", "--no-session", "--model", "corp/corp-chat", "-p", "again")
	if r.code != 0 || !strings.Contains(r.stdout, "Authorized answer.") || ts.refreshCount() != 1 {
		t.Fatalf("second run: code %d, %d refreshes\nstdout: %s\nstderr: %s", r.code, ts.refreshCount(), r.stdout, r.stderr)
	}
}

// A refresh the token server refuses ends the request with an error that says to log in again; the
// stored login is left as it was and nothing reaches the model.
func TestExtensionOAuthFailingRefresh(t *testing.T) {
	p, ts, expect := oauthProject(t)
	p.writeAuth(map[string]any{"corp": expiredLogin("ref-revoked")})
	expect("Bearer never")
	r := p.run("", "-e", "corp.ts", "--no-session", "--model", "corp/corp-chat", "-p", "hi")
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, "OAuth token refresh failed for corp") || !strings.Contains(out, "invalid_grant") ||
		!strings.Contains(out, "Run /login corp to log in again") {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if ts.refreshCount() != 1 || len(p.server.Requests()) != 0 {
		t.Errorf("%d refreshes, %d model requests", ts.refreshCount(), len(p.server.Requests()))
	}
	if c := p.readAuth()["corp"]; c["refresh"] != "ref-revoked" || c["access"] != "stale-access" {
		t.Errorf("stored login changed: %v", c)
	}
}

// pi's native Provider object: its models join the catalog, its streamSimple (pi-ai's OpenAI
// completions) sends the request, its apiKey auth resolves the key from the environment, and a
// stored OAuth credential becomes the key through its toAuth.
func TestExtensionNativeProvider(t *testing.T) {
	p, _, expect := oauthProject(t)
	r := p.run("", "-e", "corp.ts", "--list-models", "native")
	if r.code != 0 || !strings.Contains(r.stdout, "native-chat") {
		t.Fatalf("--list-models: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	expect("Bearer native-env-key")
	p.env = append(p.env, "NATIVE_KEY=native-env-key")
	r = p.run("", "-e", "corp.ts", "--no-session", "--model", "native/native-chat", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Authorized answer.") {
		t.Fatalf("env key: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	p.writeAuth(map[string]any{"native": map[string]any{"type": "oauth", "access": "tok", "refresh": "r", "expires": time.Now().Add(time.Hour).UnixMilli()}})
	expect("Bearer native-tok")
	r = p.run("", "-e", "corp.ts", "--no-session", "--model", "native/native-chat", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Authorized answer.") {
		t.Fatalf("stored login: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
