package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's own examples/extensions, as shipped in its npm package, run in pi-go in RPC mode against the
// scripted server, answered as a client answers pi: one pi-go process loads them all (one sidecar
// start), with pi 1.6.0 on Node 22 and pi 0.73.1 on the machine's Node.

// piExamples is a pi package and the Node to run it with.
type piExamples struct {
	node, pkg string
}

// testCacheDir is where `make deps` puts Node and pi: PI_GO_TEST_CACHE, default $HOME/.cache/pi-go-test.
func testCacheDir() string {
	if cache := os.Getenv("PI_GO_TEST_CACHE"); cache != "" {
		return cache
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "pi-go-test")
}

func findPiExamples(t *testing.T, version string) piExamples {
	t.Helper()
	var candidates []piExamples
	switch version {
	case testPiVersion:
		if pi, why := findPi16(); why == "" {
			candidates = append(candidates, piExamples{pi.node, pi.pkg})
		}
	case "0.73.1":
		cache := testCacheDir()
		node, _ := exec.LookPath("node")
		const pkg = "node_modules/@mariozechner/pi-coding-agent"
		candidates = append(candidates, piExamples{node, filepath.Join(cache, "pi-0.73.1", pkg)},
			piExamples{node, filepath.Join("/opt/pi/pi073", pkg)})
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c.pkg, "examples", "extensions", "hello.ts")); err == nil && c.node != "" {
			return c
		}
	}
	msg := fmt.Sprintf("pi %s with its examples and Node not found (run `make deps`)", version)
	if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return piExamples{}
}

// exampleFiles are the examples this test loads together.
var exampleFiles = []string{
	"permission-gate", "protected-paths", "tool-override", "truncated-tool", "hello", "todo",
	"input-transform", "send-user-message", "commands", "status-line", "bookmark", "notify",
	"confirm-destructive", "dirty-repo-guard",
}

func TestPiExampleExtensions(t *testing.T) {
	for _, version := range []string{testPiVersion, "0.73.1"} {
		t.Run(version, func(t *testing.T) { testPiExamples(t, findPiExamples(t, version)) })
	}
}

func testPiExamples(t *testing.T, pi piExamples) {
	p := newProject(t)
	p.write(".env", "SECRET=1\n")
	p.write("notes.txt", "alpha\nbeta\n")
	// The sidecar runs with this Node and this pi package.
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	args := p.baseArgs()
	for _, name := range exampleFiles {
		args = append(args, "-e", filepath.Join(pi.pkg, "examples", "extensions", name+".ts"))
	}
	s := p.startRPC(args...)

	// get_commands lists the examples' commands.
	s.send(map[string]any{"type": "get_commands", "id": "cmds"})
	resp := s.expect("get_commands", isType("response"))
	commands := fmt.Sprint(resp["data"])
	for _, c := range []string{"ask", "steer", "followup", "commands", "bookmark", "unbookmark", "todos"} {
		if !strings.Contains(commands, "name:"+c+" ") {
			t.Errorf("command /%s missing: %s", c, commands)
		}
	}

	// input-transform handles "ping" without the model.
	s.send(map[string]any{"type": "prompt", "id": "ping", "message": "ping"})
	if n := s.expect("pong", uiRequest("notify")); n["message"] != "pong" {
		t.Fatalf("ping: %v", n)
	}

	// "?quick" is transformed; the model's calls meet the gates and the registered tools.
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "gate", Name: "bash", Arguments: `{"command":"rm -rf build"}`},
			openaitest.ToolCallSpec{ID: "protected", Name: "write", Arguments: `{"path":".env","content":"X=2"}`},
			openaitest.ToolCallSpec{ID: "hello", Name: "hello", Arguments: `{"name":"Ada"}`},
			openaitest.ToolCallSpec{ID: "todo", Name: "todo", Arguments: `{"action":"add","text":"ship it"}`},
			openaitest.ToolCallSpec{ID: "override", Name: "read", Arguments: `{"path":".env"}`},
			openaitest.ToolCallSpec{ID: "read", Name: "read", Arguments: `{"path":"notes.txt"}`}),
		openaitest.TextReply("test-model", "Done."),
	)
	s.send(map[string]any{"type": "prompt", "id": "quick", "message": "?quick what changed"})
	sel := s.expect("permission-gate's select", uiRequest("select"))
	if !strings.Contains(fmt.Sprint(sel["title"]), "rm -rf build") || fmt.Sprint(sel["options"]) != "[Yes No]" {
		t.Fatalf("select: %v", sel)
	}
	s.send(map[string]any{"type": "extension_ui_response", "id": sel["id"], "value": "No"})
	warn := s.expect("protected-paths' notify", uiRequest("notify"))
	if warn["message"] != "Blocked write to protected path: .env" || warn["notifyType"] != "warning" {
		t.Fatalf("notify: %v", warn)
	}
	// Observing events are delivered without holding the loop: the status may come after the run.
	status := s.expectAll("status-line's turn end and agent_settled", func(m map[string]any) bool {
		return m["type"] == "extension_ui_request" && m["method"] == "setStatus" && strings.Contains(fmt.Sprint(m["statusText"]), "Turn 2 complete")
	}, isType("agent_settled"))[0]
	if status["statusKey"] != "status-demo" {
		t.Fatalf("status: %v", status)
	}

	first := requestMessages(t, p.server, 1)
	if got := contentText(first[len(first)-1]["content"]); got != "Respond briefly in 1-2 sentences: what changed" {
		t.Errorf("transformed prompt: %q", got)
	}
	checkToolResults(t, p.server, 2, map[string]string{
		"gate":      "Blocked by user",
		"protected": `Path ".env" is protected`,
		"hello":     "Hello, Ada!",
		"todo":      "Added todo #1: ship it",
		"override":  "Access denied",
		"read":      "alpha",
	})
	if data, _ := os.ReadFile(filepath.Join(p.dir, ".env")); string(data) != "SECRET=1\n" {
		t.Errorf(".env was written: %q", data)
	}

	// bookmark labels the last answer through ctx.sessionManager and pi.setLabel.
	s.send(map[string]any{"type": "prompt", "id": "bm", "message": "/bookmark first"})
	if n := s.expect("bookmark's notify", uiRequest("notify")); n["message"] != "Bookmarked as: first" {
		t.Fatalf("bookmark: %v", n)
	}

	// send-user-message's /ask starts a run with the text.
	p.server.Enqueue(openaitest.TextReply("test-model", "Hi."))
	s.send(map[string]any{"type": "prompt", "id": "ask", "message": "/ask hello there"})
	s.expect("the asked run", isType("agent_settled"))
	third := requestMessages(t, p.server, 3)
	if got := contentText(third[len(third)-1]["content"]); got != "hello there" {
		t.Errorf("/ask sent %q", got)
	}

	// The session file has the label pi's bookmark wrote.
	s.send(map[string]any{"type": "get_state", "id": "st"})
	st := s.expect("get_state", func(m map[string]any) bool { return m["id"] == "st" })
	file, _ := st["data"].(map[string]any)["sessionFile"].(string)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"type":"label"`) || !strings.Contains(string(data), `"label":"first"`) {
		t.Errorf("no label entry in %s", file)
	}

	// confirm-destructive asks before /new; "no" cancels it.
	s.send(map[string]any{"type": "new_session", "id": "new1"})
	conf := s.expect("confirm-destructive's confirm", uiRequest("confirm"))
	if conf["title"] != "Clear session?" {
		t.Fatalf("confirm: %v", conf)
	}
	s.send(map[string]any{"type": "extension_ui_response", "id": conf["id"], "confirmed": false})
	got := s.expectAll("the cancelled new_session", func(m map[string]any) bool {
		return m["type"] == "extension_ui_request" && m["message"] == "Clear cancelled"
	}, func(m map[string]any) bool { return m["id"] == "new1" })
	if fmt.Sprint(got[1]["data"]) != "map[cancelled:true]" {
		t.Fatalf("new_session: %v", got[1])
	}

	// With uncommitted files, dirty-repo-guard asks after confirm-destructive; "commit first" cancels.
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "-C", p.dir, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		s.send(map[string]any{"type": "new_session", "id": "new2"})
		conf = s.expect("confirm-destructive's confirm", uiRequest("confirm"))
		s.send(map[string]any{"type": "extension_ui_response", "id": conf["id"], "confirmed": true})
		sel := s.expect("dirty-repo-guard's select", uiRequest("select"))
		if !strings.Contains(fmt.Sprint(sel["title"]), "uncommitted file(s). new session anyway?") {
			t.Fatalf("select: %v", sel)
		}
		s.send(map[string]any{"type": "extension_ui_response", "id": sel["id"], "value": "No, let me commit first"})
		got = s.expectAll("the guarded new_session", func(m map[string]any) bool {
			return m["type"] == "extension_ui_request" && m["message"] == "Commit your changes first"
		}, func(m map[string]any) bool { return m["id"] == "new2" })
		if fmt.Sprint(got[1]["data"]) != "map[cancelled:true]" {
			t.Fatalf("new_session: %v", got[1])
		}
		if err := os.RemoveAll(filepath.Join(p.dir, ".git")); err != nil {
			t.Fatal(err)
		}
	}

	// confirm-destructive asks before a fork, reading the entry id pi-go gave it.
	s.send(map[string]any{"type": "get_fork_messages", "id": "fm"})
	fm := s.expect("get_fork_messages", func(m map[string]any) bool { return m["id"] == "fm" })
	msgs, _ := fm["data"].(map[string]any)["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("fork messages: %v", fm)
	}
	entryID := msgs[0].(map[string]any)["entryId"].(string)
	s.send(map[string]any{"type": "fork", "id": "fork", "entryId": entryID})
	sel = s.expect("confirm-destructive's fork select", uiRequest("select"))
	if sel["title"] != "Fork from entry "+entryID[:8]+"?" {
		t.Fatalf("fork select: %v", sel)
	}
	s.send(map[string]any{"type": "extension_ui_response", "id": sel["id"], "value": "No, stay in current session"})
	got = s.expectAll("the cancelled fork", func(m map[string]any) bool {
		return m["type"] == "extension_ui_request" && m["message"] == "Fork cancelled"
	}, func(m map[string]any) bool { return m["id"] == "fork" })
	if fmt.Sprint(got[1]["data"]) != "map[cancelled:true text:]" {
		t.Fatalf("fork: %v", got[1])
	}
}
