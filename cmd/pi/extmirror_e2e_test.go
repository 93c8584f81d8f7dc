package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's auto-commit-on-exit.ts with --no-session, with pi 1.6.0 on Node 22: at session_shutdown its
// ctx.sessionManager holds the in-memory session's entries, so the commit message is the last answer's
// first line, as pi 1.6 writes it (before, the sidecar's manager was empty: "[pi] Work in progress").
// Two prompts: the second answer reaches the sidecar as a delta after the first.
func TestExtensionSessionManagerWithoutSessionFile(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@u", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@u")
	p.write("a.txt", "v1\n")
	userGit(t, p.dir, "init", "-q")
	userGit(t, p.dir, "add", "a.txt")
	userGit(t, p.dir, "commit", "-qm", "v1")
	p.write("a.txt", "v2\n") // the unstaged change the extension commits

	p.server.Enqueue(openaitest.TextReply("test-model", "First answer"),
		openaitest.TextReply("test-model", "Tightened the parser\nand more detail"))
	args := append(p.baseArgs(), "--no-session", "-e", filepath.Join(pi.pkg, "examples", "extensions", "auto-commit-on-exit.ts"),
		"-p", "one", "two")
	if r := p.run("", args...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := strings.TrimSpace(userGit(t, p.dir, "log", "-1", "--format=%s")); got != "[pi] Tightened the parser" {
		t.Fatalf("commit message %q, want pi's %q", got, "[pi] Tightened the parser")
	}
}
