package harness

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/config"
)

// checkpointFixture is a session whose write and bash tools work in a project folder of its own.
func checkpointFixture(t *testing.T, turns []scriptedTurn, settings config.Settings, open func(project, agent string) func() (*checkpoint.Store, error)) (*harnessFixture, string, *[]error) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: checkpoints need it")
	}
	project := t.TempDir()
	var mu sync.Mutex
	warnings := &[]error{}
	f := newFixture(t, turns, func(o *Options) {
		o.Cwd = project
		o.Settings = config.InMemorySettings(settings)
		tools, _ := BuildTools([]string{"write", "bash"}, ToolOptions{Cwd: project})
		o.Tools = tools
		o.OpenCheckpoints = open(project, o.AgentDir)
		o.OnWarning = func(err error) { mu.Lock(); *warnings = append(*warnings, err); mu.Unlock() }
	})
	return f, project, warnings
}

func openIn(project, agent string) func() (*checkpoint.Store, error) {
	return func() (*checkpoint.Store, error) {
		return checkpoint.Open(context.Background(), checkpoint.Options{AgentDir: agent, ProjectDir: project})
	}
}

func TestTurnsAreCheckpointedAndRestored(t *testing.T) {
	ctx := context.Background()
	f, project, warnings := checkpointFixture(t, []scriptedTurn{
		toolTurn("write", `{"path":"a.txt","content":"written by the agent\n"}`),
		toolTurn("bash", `{"command":"rm b.txt && printf x > c.txt"}`),
		textTurn("done"),
	}, config.Settings{}, openIn)
	os.WriteFile(filepath.Join(project, "a.txt"), []byte("original\n"), 0o644)
	os.WriteFile(filepath.Join(project, "b.txt"), []byte("bee\n"), 0o644)
	if err := f.s.Prompt(ctx, "go", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if len(*warnings) > 0 {
		t.Fatalf("warnings: %v", *warnings)
	}
	var kinds []string
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		if e["type"] == "custom" {
			kinds = append(kinds, e["customType"].(string))
		}
	}
	if !slices.Equal(kinds, []string{CheckpointCustomType, CheckpointCustomType}) {
		t.Fatalf("custom entries = %v, want two checkpoints", kinds)
	}
	list, err := f.s.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("checkpoints = %+v", list)
	}
	if got := list[0].TurnChanges; !slices.Equal(got, []checkpoint.Change{{Path: "a.txt", Status: "modified"}}) {
		t.Errorf("first turn changed %v", got)
	}
	wantSecond := []checkpoint.Change{{Path: "b.txt", Status: "deleted"}, {Path: "c.txt", Status: "added"}}
	if got := list[1].TurnChanges; !slices.Equal(got, wantSecond) {
		t.Errorf("second turn changed %v, want %v", got, wantSecond)
	}
	if entry := f.store.Entry(list[0].EntryID); entry == nil || entry.Type != "message" {
		t.Errorf("checkpoint's entryId %q is not the turn's assistant message", list[0].EntryID)
	}
	patch, err := f.s.CheckpointPatch(ctx, list[1])
	if err != nil || !strings.Contains(patch, "+bee") {
		t.Errorf("patch of the second turn (restoring it brings b.txt back):\n%s\nerr %v", patch, err)
	}

	res, err := f.s.RestoreCheckpoint(ctx, list[0], false)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "original\n", "b.txt": "bee\n"} {
		if got, _ := os.ReadFile(filepath.Join(project, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "c.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt should be gone: %v", err)
	}
	// The restore is recorded and can be undone.
	list, _ = f.s.Checkpoints(ctx)
	undo := list[len(list)-1]
	if undo.Trigger != TriggerRestore || undo.Commit != res.Undo.Commit {
		t.Fatalf("last checkpoint %+v, want the restore's undo point", undo)
	}
	if _, err := f.s.RestoreCheckpoint(ctx, undo, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "c.txt")); string(got) != "x" {
		t.Errorf("undo: c.txt = %q", got)
	}
}

func TestOutsideChangeBlocksRestoreUntilForced(t *testing.T) {
	ctx := context.Background()
	f, project, _ := checkpointFixture(t, []scriptedTurn{
		toolTurn("write", `{"path":"a.txt","content":"agent\n"}`),
		textTurn("done"),
	}, config.Settings{}, openIn)
	os.WriteFile(filepath.Join(project, "a.txt"), []byte("original\n"), 0o644)
	if err := f.s.Prompt(ctx, "go", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(project, "a.txt"), []byte("edited by the user\n"), 0o644)
	list, err := f.s.Checkpoints(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("checkpoints %v, %v", list, err)
	}
	_, err = f.s.RestoreCheckpoint(ctx, list[0], false)
	var ce *checkpoint.ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"a.txt"}) {
		t.Fatalf("err = %v, want a conflict on a.txt", err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "a.txt")); string(got) != "edited by the user\n" {
		t.Errorf("refused restore wrote a.txt: %q", got)
	}
	if _, err := f.s.RestoreCheckpoint(ctx, list[0], true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "a.txt")); string(got) != "original\n" {
		t.Errorf("forced restore: a.txt = %q", got)
	}
}

func TestCheckpointsOffOrUnavailable(t *testing.T) {
	ctx := context.Background()
	off := false
	f, _, _ := checkpointFixture(t, []scriptedTurn{
		toolTurn("write", `{"path":"a.txt","content":"x"}`), textTurn("done"),
	}, config.Settings{Checkpoints: &off}, openIn)
	if err := f.s.Prompt(ctx, "go", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		if e["type"] == "custom" {
			t.Errorf("checkpoints: false still recorded %v", e)
		}
	}
	if _, err := f.s.Checkpoints(ctx); !errors.Is(err, ErrCheckpointsOff) {
		t.Errorf("Checkpoints err = %v", err)
	}

	missing := func(string, string) func() (*checkpoint.Store, error) {
		return func() (*checkpoint.Store, error) { return nil, checkpoint.ErrGitMissing }
	}
	g, project, warnings := checkpointFixture(t, []scriptedTurn{
		toolTurn("write", `{"path":"a.txt","content":"x"}`),
		toolTurn("write", `{"path":"b.txt","content":"y"}`),
		textTurn("done"),
	}, config.Settings{}, missing)
	if err := g.s.Prompt(ctx, "go", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if len(*warnings) != 1 || !errors.Is((*warnings)[0], checkpoint.ErrGitMissing) {
		t.Errorf("warnings = %v, want ErrGitMissing once", *warnings)
	}
	if data, _ := os.ReadFile(filepath.Join(project, "b.txt")); string(data) != "y" {
		t.Errorf("tools must run without checkpoints: b.txt = %q", data)
	}
}

func TestBangCommandIsCheckpointed(t *testing.T) {
	ctx := context.Background()
	f, project, warnings := checkpointFixture(t, nil, config.Settings{}, openIn)
	os.WriteFile(filepath.Join(project, "a.txt"), []byte("before\n"), 0o644)
	if _, err := f.s.ExecuteBash(ctx, "echo after > a.txt", false, nil); err != nil {
		t.Fatal(err)
	}
	list, err := f.s.Checkpoints(ctx)
	if err != nil || len(list) != 1 || list[0].Trigger != TriggerBash || len(*warnings) > 0 {
		t.Fatalf("checkpoints %+v, err %v, warnings %v", list, err, *warnings)
	}
	// The command's own change is the session's: restoring is no conflict.
	if _, err := f.s.RestoreCheckpoint(ctx, list[0], false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "a.txt")); string(got) != "before\n" {
		t.Errorf("a.txt = %q", got)
	}
}
