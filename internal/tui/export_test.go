package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathArg(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "  ": "", "out.html": "out.html", "a.jsonl extra": "a.jsonl", `"my file.jsonl" x`: "my file.jsonl",
		`'it s.html'`: "it s.html", `"unclosed`: "",
	} {
		if got := pathArg(in); got != want {
			t.Errorf("pathArg(%q) = %q, want %q", in, got, want)
		}
	}
}

// /export writes the page (relative paths from the project directory) or, for .jsonl, the branch;
// /import resumes such a file; /share uploads through gh, or says how to get it.
func TestExportImportAndShareCommands(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("the answer")), nil)
	u := startUI(t, sess, Options{})
	u.submit("/export")
	u.waitAll("nothing to export", contains("Failed to export session: Nothing to export yet"))
	u.submit("hello there")
	u.waitAll("the answer", contains("the answer"))

	u.submit("/export out.html")
	page := filepath.Join(sess.Cwd(), "out.html")
	u.waitAll("the export", contains("Session exported to: "+page))
	if data, err := os.ReadFile(page); err != nil || !strings.Contains(string(data), "hello there") {
		t.Fatalf("page: %v", err)
	}

	branch := filepath.Join(t.TempDir(), "my branch.jsonl")
	u.submit(`/export "` + branch + `"`)
	u.waitAll("the JSONL export", contains("Session exported to: "+branch))

	u.submit("/new")
	u.waitAll("the new session", contains("New session started"))
	u.submit(`/import "` + branch + `"`)
	u.waitScreen("the question", contains("Import session: replace the current session with"))
	u.key(tea.KeyEscape)
	u.waitAll("the refusal", contains("Import cancelled"))
	u.submit(`/import "` + branch + `"`)
	u.waitScreen("the question", contains("Import session: replace the current session with"))
	u.key(tea.KeyEnter)
	u.waitAll("the import", contains("Session imported from: "+branch))
	if got := filepath.Base(sess.Store().SessionFile()); got != "my branch.jsonl" {
		t.Fatalf("session file after import: %s", got)
	}

	t.Setenv("PATH", t.TempDir())
	u.submit("/share")
	u.waitAll("how to get gh", contains("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/"))

	bin := t.TempDir()
	gh := "#!/bin/sh\ncase \"$1 $2\" in\n\"auth status\") exit 0;;\n\"gist create\") test -s \"$4\" && echo https://gist.github.com/u/feedbeef;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/bin:/usr/bin")
	t.Setenv("PI_SHARE_VIEWER_URL", "")
	u.submit("/share")
	u.waitAll("the links", contains("Share URL: https://pi.dev/session/#feedbeef", "Gist: https://gist.github.com/u/feedbeef"))
}
