package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
)

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resourceSession is a session whose agent directory has the template /review and the skill pdf-tools;
// its warnings go to the sink the TUI shows (startUI with Options{WarningSink: sink}).
func resourceSession(t *testing.T, sc *script, settings config.Settings) (*harness.Session, string, *WarningSink) {
	t.Helper()
	agent := filepath.Join(t.TempDir(), "agent")
	writeTestFile(t, filepath.Join(agent, "prompts/review.md"), "---\ndescription: Review staged changes\nargument-hint: \"[focus]\"\n---\nReview the changes for ${1:-bugs}.")
	writeTestFile(t, filepath.Join(agent, "skills/pdf-tools/SKILL.md"), "---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pypdf.\n")
	sink := NewWarningSink()
	sess := newTestSessionWith(t, sc, nil, func(o *harness.Options) {
		o.OnWarning = sink.Warn
		o.AgentDir = agent
		o.Settings = config.InMemorySettings(settings)
		cwd := o.Cwd
		o.LoadResources = func() *resources.Set { return resources.Load(resources.Options{AgentDir: agent, Cwd: cwd}) }
	})
	return sess, agent, sink
}

func TestCompletionListsTemplatesAndSkills(t *testing.T) {
	sc := newScript(textTurn("reviewed"))
	sess, _, sink := resourceSession(t, sc, config.Settings{})
	u := startUI(t, sess, Options{WarningSink: sink})
	u.typeText("/rev")
	u.waitScreen("the template in the list", contains("review", "[focus] — [u] Review staged changes"))
	u.key(tea.KeyTab)
	u.waitEditor("/review")
	u.typeText("speed")
	u.key(tea.KeyEnter)
	// The transcript shows what was sent: the expanded template.
	u.waitAll("the expanded prompt", contains("Review the changes for speed."))
	u.waitAll("the answer", contains("reviewed"))
	if got := provider.TextOf(sc.request(0).Messages[0].(*provider.UserMessage).Content, ""); got != "Review the changes for speed." {
		t.Errorf("sent %q", got)
	}

	u.typeText("/skill:p")
	u.waitScreen("the skill in the list", contains("skill:pdf-tools", "[u] Work with PDF files"))
}

func TestSkillCommandsHiddenWhenDisabled(t *testing.T) {
	off := false
	sess, _, sink := resourceSession(t, newScript(), config.Settings{EnableSkillCommands: &off})
	u := startUI(t, sess, Options{WarningSink: sink})
	u.typeText("/re")
	screen := u.waitScreen("the list", contains("review", "reload"))
	if strings.Contains(screen, "skill:pdf-tools") {
		t.Errorf("skill commands listed although disabled:\n%s", screen)
	}
}

func TestReloadCommandReadsNewTemplates(t *testing.T) {
	sc := newScript(textTurn("ok"))
	sess, agent, sink := resourceSession(t, sc, config.Settings{})
	u := startUI(t, sess, Options{WarningSink: sink})
	// The resources are read (the list needs them) before the new files exist.
	u.typeText("/rev")
	u.waitScreen("the first list", contains("[focus] — [u] Review staged changes"))
	for range 4 {
		u.key(tea.KeyBackspace)
	}
	u.waitEditor("")
	writeTestFile(t, filepath.Join(agent, "prompts/fresh.md"), "---\ndescription: Added while running\n---\nFresh $1")
	writeTestFile(t, filepath.Join(agent, "prompts/broken.md"), "---\ndescription: [oops\n---\nx")
	u.submit("/reload")
	u.waitAll("the reload", contains("Reloaded skills, prompts, settings and context files"))
	u.waitAll("the warning naming the file", contains("broken.md"))
	u.typeText("/fre")
	u.waitScreen("the new template", contains("fresh", "Added while running"))
}

// TestFirstFrameDoesNotWaitForResources: discovery (which reads every template and skill file) is
// not on the first frame's path: with the read held up, the first frame is drawn all the same; and
// the read starts on its own, so the first "/" finds the list ready.
func TestFirstFrameDoesNotWaitForResources(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	sess := newTestSessionWith(t, newScript(), nil, func(o *harness.Options) {
		o.LoadResources = func() *resources.Set {
			close(started)
			<-release
			return &resources.Set{}
		}
	})
	defer close(release)
	u := startUI(t, sess, Options{})
	u.waitScreen("the first frame while the resources are held up", contains("test-model"))
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the resources were never read")
	}
}

// A /skill: command shows as pi shows it: "[skill] name" collapsed, then what was typed after it; the
// model gets the skill's instructions.
func TestSkillInvocationIsShownCollapsed(t *testing.T) {
	sc := newScript(textTurn("done"))
	sess, agent, sink := resourceSession(t, sc, config.Settings{})
	u := startUI(t, sess, Options{WarningSink: sink})
	u.submit("/skill:pdf-tools merge a.pdf and b.pdf")
	all := u.waitAll("the skill block and the answer", contains("[skill] pdf-tools (ctrl+o to expand)", "merge a.pdf and b.pdf", "done"))
	if strings.Contains(all, "Use pypdf.") {
		t.Errorf("the collapsed skill shows its instructions:\n%s", all)
	}
	got := provider.TextOf(sc.request(0).Messages[0].(*provider.UserMessage).Content, "")
	if !strings.HasPrefix(got, `<skill name="pdf-tools" location="`+filepath.Join(agent, "skills/pdf-tools/SKILL.md")+`">`) ||
		!strings.HasSuffix(got, "Use pypdf.\n</skill>\n\nmerge a.pdf and b.pdf") {
		t.Errorf("sent %q", got)
	}
}
