package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// userGit runs git in the project as its user would, without any configuration of the machine's.
func userGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@u", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@u")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// userRepoState is everything of the user's repository a checkpoint could disturb.
func userRepoState(t *testing.T, dir string) string {
	var b strings.Builder
	b.WriteString(userGit(t, dir, "status", "--porcelain", "--untracked-files=all"))
	b.WriteString(userGit(t, dir, "for-each-ref"))
	b.WriteString(userGit(t, dir, "stash", "list"))
	for _, f := range []string{"index", "HEAD", "config"} {
		data, err := os.ReadFile(filepath.Join(dir, ".git", f))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(f + ":" + string(data))
	}
	return b.String()
}

// fileState describes the project's files (not .git): mode and bytes, or a link's target.
func fileState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if info.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			state[rel] = "symlink -> " + target
			return nil
		}
		data, _ := os.ReadFile(p)
		state[rel] = info.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func diffStates(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k+": "+v+" != "+b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+": extra "+b[k])
		}
	}
	return out
}

// sessionCheckpoints reads the session file: its id and its pi-go:checkpoint entries' ids.
func sessionCheckpoints(t *testing.T, agentDir string) (id string, checkpoints []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e struct {
			Type, ID, CustomType string
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("session line %q: %v", line, err)
		}
		switch {
		case e.Type == "session":
			id = e.ID
		case e.Type == "custom" && e.CustomType == "pi-go:checkpoint":
			checkpoints = append(checkpoints, e.ID)
		}
	}
	return id, checkpoints
}

// A scripted model edits a file, then through bash deletes one, creates one with sed -i and mv,
// drops an exec bit and retargets a symlink. --rewind to the first checkpoint refuses while a file it
// would overwrite was changed outside pi-go, then with --force restores the exact earlier bytes,
// modes and links; the user's git repository is the same before and after.
func TestRewindRestoresWhatToolsAndBashDid(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: rewind needs it")
	}
	p := newProject(t)
	userGit(t, p.dir, "init", "-q")
	p.write("edit.txt", "one\ntwo\n")
	p.write("del.txt", "delete me\n")
	p.write("keep.txt", "kept\r\nwith CRLF\r\n")
	p.write("script.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(p.dir, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("keep.txt", filepath.Join(p.dir, "link")); err != nil {
		t.Fatal(err)
	}
	userGit(t, p.dir, "add", "edit.txt", "del.txt", "script.sh", "link")
	userGit(t, p.dir, "commit", "-q", "-m", "init")
	userGit(t, p.dir, "add", "keep.txt") // staged, not committed
	p.write("untracked.txt", "the user's own\n")
	// The user's environment points at their repository; pi-go's store must not follow it.
	p.env = append(p.env, "GIT_DIR="+filepath.Join(p.dir, ".git"), "GIT_WORK_TREE="+p.dir)
	original := fileState(t, p.dir)
	repoBefore := userRepoState(t, p.dir)

	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "c1", Name: "edit", Arguments: `{"path":"edit.txt","edits":[{"oldText":"two","newText":"TWO"}]}`}),
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "c2", Name: "bash", Arguments: `{"command":"rm del.txt && printf 'draft\\n' > tmp.txt && sed -i 's/draft/final/' tmp.txt && mv tmp.txt created.txt && chmod -x script.sh && ln -sfn edit.txt link"}`}),
		openaitest.TextReply("test-model", "done"),
	)
	r := p.run("", append(p.baseArgs(), "-p", "change things")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "created.txt")); string(got) != "final\n" {
		t.Fatalf("the scripted bash did not run: created.txt = %q", got)
	}
	id, checkpoints := sessionCheckpoints(t, p.agentDir)
	if len(checkpoints) != 2 {
		t.Fatalf("checkpoint entries %v, want one per mutating turn", checkpoints)
	}

	// The user edits a file the rewind would overwrite.
	p.write("edit.txt", "one\nthe user's edit\n")
	r = p.run("", "--session", id, "--rewind", checkpoints[0])
	if r.code != 1 || !strings.Contains(r.stderr, "edit.txt") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("conflicting rewind: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "edit.txt")); string(got) != "one\nthe user's edit\n" {
		t.Fatalf("a refused rewind changed edit.txt: %q", got)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "created.txt")); err != nil {
		t.Fatalf("a refused rewind removed created.txt: %v", err)
	}

	r = p.run("", "--session", id, "--rewind", checkpoints[0], "--force")
	if r.code != 0 {
		t.Fatalf("forced rewind: exit %d\n%s", r.code, r.stderr)
	}
	if d := diffStates(original, fileState(t, p.dir)); len(d) > 0 {
		t.Errorf("files after rewind differ from before the run:\n%s", strings.Join(d, "\n"))
	}
	if after := userRepoState(t, p.dir); after != repoBefore {
		t.Errorf("the user's repository changed\nbefore:\n%s\nafter:\n%s", repoBefore, after)
	}
	if !strings.Contains(r.stdout, "Undo with: pi --session "+id+" --rewind ") {
		t.Fatalf("no undo hint: %s", r.stdout)
	}
	// The rewind can be undone: back to the agent's files plus the user's edit.
	undo := strings.Fields(r.stdout[strings.LastIndex(r.stdout, "--rewind "):])[1]
	r = p.run("", "--session", id, "--rewind", undo)
	if r.code != 0 {
		t.Fatalf("undo: exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "edit.txt")); string(got) != "one\nthe user's edit\n" {
		t.Errorf("undo: edit.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "created.txt")); string(got) != "final\n" {
		t.Errorf("undo: created.txt = %q", got)
	}
	// Pruning with the default limits keeps these fresh checkpoints.
	r = p.run("", "checkpoints", "prune")
	if r.code != 0 || !strings.Contains(r.stdout, "deleted 0, kept ") {
		t.Errorf("prune: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestCheckpointsOffAndPrune(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: rewind needs it")
	}
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"checkpoints": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "write", Arguments: `{"path":"a.txt","content":"x"}`}),
		openaitest.TextReply("test-model", "done"),
	)
	r := p.run("", append(p.baseArgs(), "-p", "write")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, cps := sessionCheckpoints(t, p.agentDir); len(cps) != 0 {
		t.Errorf("checkpoints: false still recorded %v", cps)
	}
	if _, err := os.Stat(filepath.Join(p.agentDir, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("checkpoints: false still created the store: %v", err)
	}
	r = p.run("", "checkpoints", "prune")
	if r.code != 0 || !strings.Contains(r.stdout, "No checkpoint stores") {
		t.Errorf("prune with no stores: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
