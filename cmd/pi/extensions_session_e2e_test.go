package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The session operations at the protocol level, with testdata/extensions/python/session.py (no
// Node): user_bash answered and streamed by the extension, model_select, setActiveTools,
// sendMessage starting a turn, a compaction whose summary the extension supplies and one it cancels
// (session_compact_failed), the payload it changes (before_provider_request), the responses it sees
// (after_provider_response) and the skills directory it contributes (resources_discover).
func TestProtocolExtensionSessionOperations(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the Python extension cannot run")
	}
	ext, err := filepath.Abs("../../testdata/extensions/python/session.py")
	if err != nil {
		t.Fatal(err)
	}
	p := mockProject(t)
	smallCompactions(t, p)
	p.write("py-skills/py-skill/SKILL.md", "---\nname: py-skill\ndescription: A skill the extension contributes\n---\nUse it.\n")
	s := p.startRPC("--provider", "mock", "--model", "mock-model", "-e", ext)

	s.send(map[string]any{"type": "get_commands", "id": "cmds"})
	if cmds := fmt.Sprint(s.expect("get_commands", isResponse("cmds"))["data"]); !strings.Contains(cmds, "skill:py-skill") {
		t.Errorf("resources_discover's skill is not a command: %s", cmds)
	}

	s.send(map[string]any{"type": "set_model", "id": "m", "provider": "mock", "modelId": "mock-reasoner"})
	s.expect("model_select's notify", notifyWith("py model: mock/mock-reasoner (set)"))

	s.send(map[string]any{"type": "bash", "id": "b", "command": "remote uptime"})
	got := s.expectAll("the extension's bash result", isResponse("b"), func(m map[string]any) bool {
		return m["type"] == "bash_execution_update" && m["delta"] == "remote: uptime\n"
	})
	if data, _ := got[0]["data"].(map[string]any); data["output"] != "remote: uptime\n" || fmt.Sprint(data["exitCode"]) != "0" {
		t.Fatalf("bash: %v", got[0])
	}

	p.server.Enqueue(openaitest.TextReply("mock-reasoner", "noted"), openaitest.TextReply("mock-reasoner", "fine"))
	s.send(map[string]any{"type": "prompt", "id": "t", "message": "/py-tools read ls"})
	s.expect("/py-tools", isResponse("t"))
	s.send(map[string]any{"type": "prompt", "id": "n", "message": "/py-note look at the logs"})
	s.expectAll("the run sendMessage started, and after_provider_response's notify", isType("agent_settled"),
		notifyWith("py response 200 text/event-stream"))
	if tools := strings.Join(requestTools(t, p, 1), ","); tools != "read,ls" {
		t.Errorf("tools after setActiveTools: %s", tools)
	}
	first := requestMessages(t, p.server, 1)
	if n := len(first); n < 2 || contentText(first[n-2]["content"]) != "look at the logs" || contentText(first[n-1]["content"]) != "context for py-note" {
		t.Errorf("the run began with %v", first)
	}

	s.send(map[string]any{"type": "prompt", "id": "p", "message": "and now?"})
	s.expect("the second run", isType("agent_settled"))
	s.send(map[string]any{"type": "compact", "id": "cancel", "customInstructions": "py-cancel"})
	if resp := s.expectAll("the cancelled compaction and session_compact_failed's notify", isResponse("cancel"),
		notifyWith("py compact failed reason=manual aborted=true fromExtension=false errorMessage="))[0]; resp["success"] != false ||
		!strings.Contains(fmt.Sprint(resp["error"]), "Compaction cancelled") {
		t.Fatalf("compact: %v", resp)
	}
	s.send(map[string]any{"type": "compact", "id": "c"})
	resp := s.expectAll("compact's response and session_compact's notify", isResponse("c"),
		notifyWith("py compacted fromExtension=true"))[0]
	if data, _ := resp["data"].(map[string]any); !strings.HasPrefix(fmt.Sprint(data["summary"]), "python summary of ") {
		t.Fatalf("compact: %v", resp)
	}
	reqs := p.server.Requests()
	if n := len(reqs); n != 2 {
		t.Errorf("%d requests: the extension's summary should spare the model one", n)
	}
	for i, r := range reqs {
		if body, err := r.JSON(); err != nil || body["user"] != "py-hooked" {
			t.Errorf("request %d was sent without before_provider_request's change: %s", i+1, r.Body)
		}
	}
}
