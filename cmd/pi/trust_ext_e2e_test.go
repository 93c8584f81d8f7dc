package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi 1.6's project_trust end to end: a user-level extension decides the project's trust before the
// project's own extensions load; the project's extension is loaded after a yes and never asked.
// Both kinds answer from TRUSTGATE_DECISION / TRUSTGATE_REMEMBER and log what they get to
// TRUSTGATE_LOG as "<name> <event> …": the user's is "trustgate", the project's "local-gate".

// trustTSUser and trustTSLocal are the TypeScript pair, run by pi's own runner in the sidecar. They
// also log each load with Node's pid, so the test sees that one Node process loaded both and that
// the user's extension loaded once.
const trustTSUser = `import fs from "node:fs";
const log = (line: string) => fs.appendFileSync(process.env.TRUSTGATE_LOG!, "trustgate " + line + "\n");
export default function (pi: any) {
	log("load " + process.pid);
	pi.on("project_trust", async (event: any, ctx: any) => {
		log("project_trust " + ctx.mode + " " + ctx.hasUI);
		// Without a UI (every mode but the TUI's start) a dialog answers undefined at once.
		if (!ctx.hasUI) log("picked " + (await ctx.ui.select("pick one", ["a", "b"])));
		const decision = process.env.TRUSTGATE_DECISION || "undecided";
		if (decision === "hang") return new Promise(() => {});
		ctx.ui.notify("trustgate was asked about " + event.cwd, "info");
		return { trusted: decision, remember: process.env.TRUSTGATE_REMEMBER === "1" };
	});
	pi.on("session_start", () => log("session_start"));
}
`

const trustTSLocal = `import fs from "node:fs";
const log = (line: string) => fs.appendFileSync(process.env.TRUSTGATE_LOG!, "local-gate " + line + "\n");
export default function (pi: any) {
	log("load " + process.pid);
	pi.on("project_trust", () => {
		log("project_trust");
		return { trusted: "no" };
	});
	pi.on("session_start", () => log("session_start"));
}
`

// installTrustgate returns what puts the Go trustgate into a project: in the agent's extensions
// directory, and as .pi/extensions/local-gate in the project.
func installTrustgate(t *testing.T) func(p *project) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "trustgate")
	if out, err := exec.Command("go", "build", "-o", exe, "../../testdata/extensions/trustgate").CombinedOutput(); err != nil {
		t.Fatalf("building trustgate: %v\n%s", err, out)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return func(p *project) {
		for _, dst := range []string{filepath.Join(p.agentDir, "extensions", "trustgate"), filepath.Join(p.dir, ".pi", "extensions", "local-gate")} {
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// installTrustTS returns what puts the TypeScript pair into a project, run with pi 1.6.0 on Node 22.
func installTrustTS(t *testing.T) func(p *project) {
	t.Helper()
	pi, why := findPi16()
	if why != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	return func(p *project) {
		if err := os.MkdirAll(filepath.Join(p.agentDir, "extensions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.agentDir, "extensions", "trustgate.ts"), []byte(trustTSUser), 0o644); err != nil {
			t.Fatal(err)
		}
		p.write(".pi/extensions/local-gate.ts", trustTSLocal)
		p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	}
}

func TestProjectTrustExtensions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	t.Run("executable", func(t *testing.T) { testProjectTrustExtensions(t, installTrustgate(t), false) })
	t.Run("typescript", func(t *testing.T) { testProjectTrustExtensions(t, installTrustTS(t), true) })
}

func testProjectTrustExtensions(t *testing.T, install func(*project), node bool) {
	p := trustProject(t)
	install(p)
	logFile := filepath.Join(t.TempDir(), "trustgate.log")
	base := append(p.env, "TRUSTGATE_LOG="+logFile)
	trustFile := filepath.Join(p.agentDir, "trust.json")
	saved := func(trusted bool) string {
		return fmt.Sprintf("{\n  %q: %v\n}\n", config.CanonicalPath(p.dir), trusted)
	}
	type want struct {
		trusted, asked, localLoaded bool
		trustJSON                   string // "" for no file
		stderr                      string
	}
	for _, c := range []struct {
		name      string
		env       []string
		trustJSON string // written before the run ("" for none)
		args      []string
		want      want
	}{
		{name: "yes decides", env: []string{"TRUSTGATE_DECISION=yes"},
			want: want{trusted: true, asked: true, localLoaded: true}},
		{name: "no decides over trust.json", env: []string{"TRUSTGATE_DECISION=no"}, trustJSON: saved(true),
			want: want{asked: true, trustJSON: saved(true)}},
		{name: "undecided falls through to trust.json", trustJSON: saved(true),
			want: want{trusted: true, asked: true, localLoaded: true, trustJSON: saved(true)}},
		{name: "undecided falls through to the default", want: want{asked: true}},
		{name: "remember saves yes", env: []string{"TRUSTGATE_DECISION=yes", "TRUSTGATE_REMEMBER=1"},
			want: want{trusted: true, asked: true, localLoaded: true, trustJSON: saved(true)}},
		{name: "remember saves no", env: []string{"TRUSTGATE_DECISION=no", "TRUSTGATE_REMEMBER=1"}, trustJSON: saved(true),
			want: want{asked: true, trustJSON: saved(false)}},
		{name: "a hanging handler times out", env: []string{"TRUSTGATE_DECISION=hang", "PI_GO_EXTENSION_TIMEOUT=300ms"}, trustJSON: saved(true),
			want: want{trusted: true, asked: true, localLoaded: true, trustJSON: saved(true), stderr: "extension did not answer in time"}},
		{name: "--no-approve asks nobody", env: []string{"TRUSTGATE_DECISION=yes"}, args: []string{"--no-approve"},
			want: want{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_ = os.Remove(logFile)
			_ = os.Remove(trustFile)
			if c.trustJSON != "" {
				if err := os.WriteFile(trustFile, []byte(c.trustJSON), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p.env = append(append([]string(nil), base...), c.env...)
			trusted, r := runTrusting(t, p, c.args...)
			logData, _ := os.ReadFile(logFile)
			log := string(logData)
			if trusted != c.want.trusted {
				t.Errorf("trusted %v, want %v\nstderr: %s\nlog:\n%s", trusted, c.want.trusted, r.stderr, log)
			}
			if asked := strings.Contains(log, "trustgate project_trust print false\n"); asked != c.want.asked {
				t.Errorf("asked %v, want %v (mode print, no UI):\n%s", asked, c.want.asked, log)
			}
			if loaded := strings.Contains(log, "local-gate session_start\n"); loaded != c.want.localLoaded {
				t.Errorf("project extension loaded %v, want %v:\n%s", loaded, c.want.localLoaded, log)
			}
			if strings.Contains(log, "local-gate project_trust") {
				t.Errorf("the project's own extension was asked:\n%s", log)
			}
			if !strings.Contains(log, "trustgate session_start\n") {
				t.Errorf("the user's extension did not serve the session:\n%s", log)
			}
			data, err := os.ReadFile(trustFile)
			if got := string(data); got != c.want.trustJSON || (c.want.trustJSON == "" && !os.IsNotExist(err)) {
				t.Errorf("trust.json %q (%v), want %q", got, err, c.want.trustJSON)
			}
			if c.want.stderr != "" && !strings.Contains(r.stderr, c.want.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, c.want.stderr)
			}
			if node {
				checkOneSidecar(t, log, c.want.localLoaded)
				if hang := strings.Contains(strings.Join(c.env, " "), "=hang"); c.want.asked && !hang &&
					!strings.Contains(r.stderr, "trustgate was asked about "+p.dir) {
					t.Errorf("notify did not reach stderr: %q", r.stderr)
				}
			}
		})
	}
}

// checkOneSidecar checks that one Node process loaded the user's extension once and, after a yes,
// the project's beside it.
func checkOneSidecar(t *testing.T, log string, local bool) {
	t.Helper()
	var userPid, localPid string
	for _, line := range strings.Split(log, "\n") {
		if pid, ok := strings.CutPrefix(line, "trustgate load "); ok {
			if userPid != "" {
				t.Errorf("the user's extension loaded twice:\n%s", log)
			}
			userPid = pid
		}
		if pid, ok := strings.CutPrefix(line, "local-gate load "); ok {
			localPid = pid
		}
	}
	if userPid == "" || (local && localPid != userPid) || (!local && localPid != "") {
		t.Errorf("user's extension in Node %q, project's in %q (want the same, or none when untrusted):\n%s", userPid, localPid, log)
	}
}

// In RPC mode pi's trust context has no UI (the client is not served yet): the handler's dialogs
// answer at once without an extension_ui_request, and its decision holds for the session.
func TestProjectTrustExtensionsInRPCMode(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	for _, c := range []struct {
		name    string
		install func(*testing.T) func(*project)
		env     string
		trusted bool
		logged  string
	}{
		// trustgate's confirm gets no answer, which is a no.
		{"executable", installTrustgate, "TRUSTGATE_DECISION=ask", false, "trustgate project_trust rpc false\n"},
		{"typescript", installTrustTS, "TRUSTGATE_DECISION=yes", true, "trustgate project_trust rpc false\ntrustgate picked undefined\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := trustProject(t)
			c.install(t)(p)
			logFile := filepath.Join(t.TempDir(), "trustgate.log")
			p.env = append(p.env, c.env, "TRUSTGATE_LOG="+logFile)
			p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
			s := p.startRPC("--model", "mock/mock-model", "--no-session")
			s.send(map[string]any{"type": "prompt", "id": "p1", "message": "hi"})
			s.expect("agent_settled", func(m map[string]any) bool {
				if m["type"] == "extension_ui_request" && m["method"] != "notify" {
					t.Fatalf("a dialog reached the RPC client: %v", m)
				}
				return m["type"] == "agent_settled"
			})
			system := contentText(requestMessages(t, p.server, 1)[0]["content"])
			if trusted := strings.Contains(system, "Project rule: mention the README."); trusted != c.trusted {
				t.Errorf("trusted %v, want %v", trusted, c.trusted)
			}
			log, _ := os.ReadFile(logFile)
			if !strings.Contains(string(log), c.logged) {
				t.Errorf("log lacks %q:\n%s", c.logged, log)
			}
		})
	}
}
