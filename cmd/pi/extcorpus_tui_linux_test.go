package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's interactive examples in pi-go's terminal, with pi 1.6.0 on Node 22: question and questionnaire
// (tools whose custom() screens take the keys), git-checkpoint (a stash of the working tree at each
// turn after a tool ran) and handoff (a summary asked of the model from the sidecar under a custom()
// loader, edited in an editor dialog, then a new session with the draft in the editor).
func TestPiInteractiveExamplesInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := mockProject(t)
	gitEnv := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@u", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@u"}
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	p.env = append(p.env, gitEnv...)
	p.write("a.txt", "v1\n")
	userGit(t, p.dir, "init", "-q")
	userGit(t, p.dir, "add", "a.txt")
	userGit(t, p.dir, "commit", "-qm", "v1")
	args := []string{"--model", "mock/mock-model", "--tui-mode", "regular"}
	for _, name := range []string{"question.ts", "questionnaire.ts", "git-checkpoint.ts", "handoff.ts"} {
		args = append(args, "-e", filepath.Join(pi.pkg, "examples", "extensions", name))
	}
	pane := startTmuxPi(t, p, args...)
	run := func(text string) {
		pane.keys("-l", text)
		pane.keys("Enter")
	}
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "mock-model") })

	p.server.Enqueue(
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "w", Name: "write",
			Arguments: `{"path":"a.txt","content":"v2\n"}`}),
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "q", Name: "question",
			Arguments: `{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}`}),
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "qs", Name: "questionnaire",
			Arguments: `{"questions":[{"id":"scope","label":"Scope","prompt":"What scope?","options":[{"value":"fe","label":"Frontend"},{"value":"be","label":"Backend"}]},` +
				`{"id":"prio","label":"Priority","prompt":"How urgent?","options":[{"value":"hi","label":"High"},{"value":"lo","label":"Low"}]}]}`}),
		openaitest.TextReply("mock-model", "all answered"),
	)
	run("change a.txt and ask me")

	// question: its list of options; Down and Enter pick the second.
	pane.waitFor("question's screen", func(s string) bool {
		return strings.Contains(s, "Which colour?") && strings.Contains(s, "Blue") && strings.Contains(s, "Type something.")
	})
	pane.keys("Down")
	pane.keys("Enter")
	// questionnaire: one tab per question and Submit; Enter answers the first, Down Enter the second,
	// Enter submits.
	pane.waitFor("questionnaire's first question", func(s string) bool {
		return strings.Contains(s, "What scope?") && strings.Contains(s, "Submit")
	})
	pane.keys("Enter")
	pane.waitFor("questionnaire's second question", func(s string) bool { return strings.Contains(s, "How urgent?") })
	pane.keys("Down")
	pane.keys("Enter")
	pane.waitFor("questionnaire's submit tab", func(s string) bool { return strings.Contains(s, "Ready to submit") })
	pane.keys("Enter")
	pane.waitFor("the run's end", func(s string) bool { return strings.Contains(s, "all answered") })
	checkToolResults(t, p.server, 3, map[string]string{"q": "User selected: 2. Blue"})
	checkToolResults(t, p.server, 4, map[string]string{"qs": "Scope: user selected: 1. Frontend\nPriority: user selected: 2. Low"})

	// git-checkpoint: at the turns after the write, `git stash create` saved the changed tree (an
	// unreferenced commit: stash create moves no ref and leaves the working tree as it is).
	if got, _ := os.ReadFile(filepath.Join(p.dir, "a.txt")); string(got) != "v2\n" {
		t.Errorf("a.txt = %q after the write", got)
	}
	stashed := false
	for _, sha := range regexp.MustCompile(`unreachable commit ([0-9a-f]{40})`).FindAllStringSubmatch(userGit(t, p.dir, "fsck", "--unreachable", "--no-reflogs"), -1) {
		if userGit(t, p.dir, "show", sha[1]+":a.txt") == "v2\n" {
			stashed = true
		}
	}
	if !stashed {
		t.Errorf("git-checkpoint made no stash of the changed a.txt:\n%s", userGit(t, p.dir, "fsck", "--unreachable", "--no-reflogs"))
	}
	if strings.TrimSpace(userGit(t, p.dir, "stash", "list")) != "" {
		t.Errorf("git-checkpoint's checkpoints should not be on the stash list")
	}
	first := sessionFiles(t, p)
	if len(first) != 1 {
		t.Fatalf("sessions before the handoff: %v", first)
	}

	// handoff: the model writes the draft (asked by the sidecar through pi's model registry), the
	// editor dialog shows it, and the new session starts with it in the editor.
	p.server.Enqueue(openaitest.TextReply("mock-model", "HANDOFF DRAFT: ship the colour picker"))
	run("/handoff finish the picker")
	pane.waitFor("the draft in the editor dialog", func(s string) bool {
		return strings.Contains(s, "Edit handoff prompt") && strings.Contains(s, "HANDOFF DRAFT: ship the colour picker")
	})
	pane.keys("Enter")
	pane.waitFor("the new session with the draft", func(s string) bool {
		return strings.Contains(s, "Handoff ready. Submit when ready.") && strings.Contains(s, "New session started")
	})
	reqs := p.server.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 4 of the run and handoff's", len(reqs))
	}
	handoff := string(reqs[4].Body)
	for _, want := range []string{"context transfer assistant", "## User's Goal for New Thread", "finish the picker", "all answered"} {
		if !strings.Contains(handoff, want) {
			t.Errorf("handoff's request lacks %q: %s", want, handoff)
		}
	}
	p.server.Enqueue(openaitest.TextReply("mock-model", "picking up the handoff"))
	pane.keys("Enter") // the draft the extension put in the editor
	pane.waitFor("the handed-off prompt's answer", func(s string) bool { return strings.Contains(s, "picking up the handoff") })
	var conversation []map[string]any
	for _, m := range requestMessages(t, p.server, 6) {
		if m["role"] != "system" {
			conversation = append(conversation, m)
		}
	}
	if len(conversation) != 1 || contentText(conversation[0]["content"]) != "HANDOFF DRAFT: ship the colour picker" {
		t.Errorf("the new session's first request: %v", conversation)
	}
	var child string
	for _, f := range sessionFiles(t, p) {
		if f != first[0] {
			child = f
		}
	}
	header, _ := os.ReadFile(child)
	if !strings.Contains(strings.SplitN(string(header), "\n", 2)[0], `"parentSession":"`+first[0]+`"`) {
		t.Errorf("the new session does not name its parent %s:\n%s", first[0], header)
	}
}

// sessionFiles are the session files under the project's agent directory.
func sessionFiles(t *testing.T, p *project) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// pi's dynamic-resources example contributes a theme (resources_discover's themePaths): with the
// theme setting naming it, the terminal takes its colours once the extension has answered (the
// editor's rules are its borderMuted, #505050: 256-colour index 239 in this terminal; the built-in
// dark theme's are #768186).
func TestExtensionThemeFromResourcesDiscover(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"theme":"dynamic-resources"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxPi(t, p, append(p.baseArgs(), "--tui-mode", "regular",
		"-e", filepath.Join(pi.pkg, "examples", "extensions", "dynamic-resources", "index.ts"))...)
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "test-model") })
	border := regexp.MustCompile(`\x1b\[38;5;239m─`)
	pane.waitFor("the extension's theme", func(string) bool {
		return border.MatchString(pane.tmux("capture-pane", "-p", "-e", "-t", "pi"))
	})
}
