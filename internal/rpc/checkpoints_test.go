package rpc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// withCheckpoints gives the fixture's session a checkpoint store when fo asks for one.
func withCheckpoints(fo fixtureOptions, f *fixture, o harness.Options) harness.Options {
	if fo.checkpoints {
		o.OpenCheckpoints = func() (*checkpoint.Store, error) {
			return checkpoint.Open(context.Background(), checkpoint.Options{AgentDir: f.agentDir, ProjectDir: f.cwd})
		}
	}
	return o
}

func TestGetAndRestoreCheckpoints(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: checkpoints need it")
	}
	f := newFixture(t, fixtureOptions{checkpoints: true, tools: []string{"bash"}})
	path := filepath.Join(f.cwd, "a.txt")
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, f.sess, ServeOptions{})
	f.srv.Enqueue(
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "t1", Name: "bash", Arguments: `{"command":"echo after > a.txt"}`}),
		openaitest.TextReply("mock-model", "done"),
	)
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": "change it"})
	// agent_settled, not agent_end: the snapshot of what the run left (the newest turn's end) is
	// taken in the background and done only once the session settles.
	c.waitEvent(from, "agent_settled")

	data := c.ok(map[string]any{"type": "get_checkpoints"}).(map[string]any)
	list := data["checkpoints"].([]any)
	if len(list) != 1 {
		t.Fatalf("checkpoints: %v", data)
	}
	cp := list[0].(map[string]any)
	turn := cp["turnChanges"].([]any)
	if cp["trigger"] != "tool" || cp["available"] != true || len(turn) != 1 ||
		turn[0].(map[string]any)["path"] != "a.txt" || turn[0].(map[string]any)["status"] != "modified" {
		t.Errorf("checkpoint: %v", cp)
	}

	// An outside change is a conflict: nothing is restored until force.
	if err := os.WriteFile(path, []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.ok(map[string]any{"type": "restore_checkpoint", "checkpointId": cp["entryId"]}).(map[string]any)
	if res["restored"] != false || len(res["conflicts"].([]any)) != 1 {
		t.Fatalf("conflicting restore: %v", res)
	}
	if got, _ := os.ReadFile(path); string(got) != "the user's\n" {
		t.Fatalf("a refused restore wrote a.txt: %q", got)
	}
	res = c.ok(map[string]any{"type": "restore_checkpoint", "checkpointId": cp["id"], "force": true}).(map[string]any)
	if res["restored"] != true || res["undoCheckpointId"] == "" {
		t.Fatalf("forced restore: %v", res)
	}
	if got, _ := os.ReadFile(path); string(got) != "before\n" {
		t.Errorf("a.txt = %q", got)
	}
	// The restore is undone through the checkpoint it recorded.
	res = c.ok(map[string]any{"type": "restore_checkpoint", "checkpointId": res["undoCheckpointId"]}).(map[string]any)
	if got, _ := os.ReadFile(path); res["restored"] != true || string(got) != "the user's\n" {
		t.Errorf("undo: %v, a.txt = %q", res, got)
	}
	r := c.call(map[string]any{"type": "restore_checkpoint", "checkpointId": "nope"})
	if r.obj["success"] != false {
		t.Errorf("unknown checkpoint: %s", r.raw)
	}
}
