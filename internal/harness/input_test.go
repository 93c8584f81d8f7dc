package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
)

// writeFile creates path with content, and its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resourceFixture is a session whose agent directory has a template /review and a skill pdf-tools,
// loaded through Options.LoadResources; loads counts the loads and warnings collects what the session
// reported.
type resourceFixture struct {
	*harnessFixture
	agent    string
	loads    atomic.Int32
	mu       sync.Mutex
	warnings []string
}

func newResourceFixture(t *testing.T, turns []scriptedTurn, mutate func(*Options)) *resourceFixture {
	t.Helper()
	rf := &resourceFixture{}
	rf.harnessFixture = newFixture(t, turns, func(o *Options) {
		rf.agent = o.AgentDir
		writeFile(t, filepath.Join(o.AgentDir, "prompts/review.md"),
			"---\ndescription: Review\nargument-hint: \"[focus]\"\n---\nReview for ${1:-bugs}.")
		writeFile(t, filepath.Join(o.AgentDir, "skills/pdf-tools/SKILL.md"),
			"---\nname: pdf-tools\ndescription: PDF things\n---\n# PDF\nUse scripts/x.py.\n")
		agent, cwd := o.AgentDir, o.Cwd
		o.LoadResources = func() *resources.Set {
			rf.loads.Add(1)
			return resources.Load(resources.Options{AgentDir: agent, Cwd: cwd})
		}
		o.OnWarning = func(err error) {
			rf.mu.Lock()
			rf.warnings = append(rf.warnings, err.Error())
			rf.mu.Unlock()
		}
		if mutate != nil {
			mutate(o)
		}
	})
	return rf
}

// userTexts are the user messages of the session file, in order.
func (f *harnessFixture) userTexts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, e := range fileEntries(t, f.store.SessionFile()) {
		if entrySummary(e) != "message:user" {
			continue
		}
		var m provider.UserMessage
		data, _ := json.Marshal(e["message"])
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, provider.TextOf(m.Content, ""))
	}
	return out
}

func TestPromptExpandsTemplatesAndSkills(t *testing.T) {
	f := newResourceFixture(t, []scriptedTurn{textTurn("a"), textTurn("b"), textTurn("c"), textTurn("d")}, nil)
	if n := f.loads.Load(); n != 0 {
		t.Fatalf("resources read %d times before they were needed", n)
	}
	_ = f.s.SystemPrompt() // the footer's estimate must not pull discovery in
	if n := f.loads.Load(); n != 0 {
		t.Fatalf("SystemPrompt read the resources")
	}
	for _, in := range []string{"/review", "/review speed", "/skill:pdf-tools now", "/unknown x"} {
		if err := f.s.Prompt(context.Background(), in, nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
	}
	skill := filepath.Join(f.agent, "skills/pdf-tools")
	want := []string{"Review for bugs.", "Review for speed.",
		`<skill name="pdf-tools" location="` + skill + `/SKILL.md">` + "\nReferences are relative to " + skill + ".\n\n# PDF\nUse scripts/x.py.\n</skill>\n\nnow",
		"/unknown x"}
	if got := f.userTexts(t); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sent:\n%q\nwant\n%q", got, want)
	}
	if n := f.loads.Load(); n != 1 {
		t.Errorf("resources read %d times", n)
	}
	if got := f.s.Commands(); len(got) != 2 || got[0].Name != "review" || got[0].ArgumentHint != "[focus]" || got[1].Name != "skill:pdf-tools" {
		t.Errorf("commands: %+v", got)
	}
}

// fakeExtensions registers /hello and an input handler that handles "drop" and turns "shout x"
// into "X".
type fakeExtensions struct {
	mu   sync.Mutex
	ran  []string
	seen []InputEvent
}

func (e *fakeExtensions) Commands() []ExtensionCommand {
	return []ExtensionCommand{{Name: "hello", Description: "Say hello"}}
}

func (e *fakeExtensions) RunCommand(_ context.Context, name, args string) (bool, error) {
	if name != "hello" {
		return false, nil
	}
	e.mu.Lock()
	e.ran = append(e.ran, args)
	e.mu.Unlock()
	if args == "fail" {
		return true, errors.New("boom")
	}
	return true, nil
}

func (e *fakeExtensions) Input(_ context.Context, ev InputEvent) (InputResult, error) {
	e.mu.Lock()
	e.seen = append(e.seen, ev)
	e.mu.Unlock()
	switch {
	case ev.Text == "drop":
		return InputResult{Action: InputHandled}, nil
	case strings.HasPrefix(ev.Text, "shout "):
		return InputResult{Action: InputTransform, Text: strings.ToUpper(strings.TrimPrefix(ev.Text, "shout "))}, nil
	case ev.Text == "broken":
		return InputResult{}, errors.New("handler failed")
	}
	return InputResult{Action: InputContinue}, nil
}

func TestPipelineOrderWithExtensions(t *testing.T) {
	ext := &fakeExtensions{}
	f := newResourceFixture(t, []scriptedTurn{textTurn("a"), textTurn("b"), textTurn("c")}, func(o *Options) { o.Extensions = ext })
	rec := &preflightRecorder{}
	for _, in := range []string{"/hello world", "/hello fail", "drop"} {
		if err := f.s.PromptWithHooks(context.Background(), in, nil, BehaviorNone, rec.hooks()); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range rec.dispositions {
		if d != DispositionHandled {
			t.Errorf("prompt %d: %q", i, d)
		}
	}
	if f.script.requestCount() != 0 {
		t.Fatalf("a handled prompt reached the model")
	}
	// The input handler sees the raw text, before the template expands; its result is expanded.
	for _, in := range []string{"shout /review", "/review x", "broken"} {
		if err := f.s.PromptWithHooks(context.Background(), in, nil, BehaviorNone, PromptHooks{Source: SourceRPC}); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.userTexts(t); strings.Join(got, "|") != "/REVIEW|Review for x.|broken" {
		t.Errorf("sent %q", got)
	}
	ext.mu.Lock()
	defer ext.mu.Unlock()
	if strings.Join(ext.ran, "|") != "world|fail" {
		t.Errorf("commands ran with %q", ext.ran)
	}
	if len(ext.seen) != 4 || ext.seen[2].Text != "/review x" || ext.seen[2].Source != SourceRPC || ext.seen[0].StreamingBehavior != "" {
		t.Errorf("input events: %+v", ext.seen)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w := strings.Join(f.warnings, "|"); !strings.Contains(w, "command /hello: boom") || !strings.Contains(w, "input handler: handler failed") {
		t.Errorf("warnings: %v", f.warnings)
	}
	cmds := f.s.Commands()
	if len(cmds) != 3 || cmds[0].Name != "hello" || cmds[0].Source != "extension" {
		t.Errorf("commands: %+v", cmds)
	}
}

func TestQueueInputExpandsAndRefusesExtensionCommands(t *testing.T) {
	ext := &fakeExtensions{}
	f := newResourceFixture(t, []scriptedTurn{textTurn("first"), textTurn("second")}, func(o *Options) { o.Extensions = ext })
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "go", nil, BehaviorNone) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
	if _, err := f.s.QueueInput(context.Background(), "/hello x", nil, false, SourceRPC); err == nil ||
		err.Error() != `Extension command "/hello" cannot be queued. Use prompt() or execute the command when not streaming.` {
		t.Errorf("queued an extension command: %v", err)
	}
	if d, err := f.s.QueueInput(context.Background(), "drop", nil, true, SourceRPC); err != nil || d != DispositionHandled {
		t.Errorf("handled: %q %v", d, err)
	}
	if d, err := f.s.QueueInput(context.Background(), "/review later", nil, true, SourceRPC); err != nil || d != DispositionQueued {
		t.Errorf("follow-up: %q %v", d, err)
	}
	if _, followUp := f.s.QueuedTexts(); len(followUp) != 1 || followUp[0] != "Review for later." {
		t.Errorf("queued %q", followUp)
	}
	ext.mu.Lock()
	last := ext.seen[len(ext.seen)-1]
	ext.mu.Unlock()
	if last.StreamingBehavior != BehaviorFollowUp {
		t.Errorf("input event during a run: %+v", last)
	}
	close(f.script.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := f.userTexts(t); strings.Join(got, "|") != "go|Review for later." {
		t.Errorf("sent %q", got)
	}
}

func TestReloadRereadsResourcesAndReportsProblems(t *testing.T) {
	f := newResourceFixture(t, []scriptedTurn{textTurn("a"), textTurn("b")}, nil)
	if err := f.s.Prompt(context.Background(), "/later", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.agent, "prompts/later.md"), "Added later: $@")
	writeFile(t, filepath.Join(f.agent, "prompts/bad.md"), "---\ndescription: [oops\n---\nx")
	if err := f.s.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(context.Background(), "/later now", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if got := f.userTexts(t); strings.Join(got, "|") != "/later|Added later: now" {
		t.Errorf("sent %q", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], filepath.Join(f.agent, "prompts/bad.md")+": invalid frontmatter") {
		t.Errorf("warnings: %q", f.warnings)
	}
}

// TestSkillsSectionMatchesPi16: the <skills> section pi 1.6.0 sent (testdata/pi16/prompts) for the
// recorded workspace, with the read tool and with only bash.
func TestSkillsSectionMatchesPi16(t *testing.T) {
	data, err := os.ReadFile("../../testdata/pi16/prompts/record.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		Name         string `json:"name"`
		SystemPrompt string `json:"systemPrompt"`
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS("../../testdata/resources")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/.git", "home"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	section := func(prompt string) string {
		start, end := strings.Index(prompt, "<skills>"), strings.Index(prompt, "</skills>")
		if start < 0 || end < 0 {
			return ""
		}
		return prompt[start : end+len("</skills>")]
	}
	for _, run := range runs {
		o := resources.Options{AgentDir: filepath.Join(work, "agent"), Cwd: filepath.Join(work, "proj"),
			Home: filepath.Join(work, "home"), GlobalPrompts: []string{"../extra-prompts"}}
		tools := []string{"read", "bash", "edit", "write"}
		switch run.Name {
		case "trusted":
			o.ProjectTrusted, o.SkillPaths = true, []string{"../extra-skills/commit-helper"}
		case "bash-only":
			o.ProjectTrusted, tools = true, []string{"bash"}
		case "no-skills":
			o.ProjectTrusted, o.NoSkills, o.SkillPaths = true, true, []string{"../extra-skills/commit-helper"}
		}
		var skills []Skill
		for _, sk := range resources.Load(o).Skills {
			skills = append(skills, Skill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath, DisableModelInvocation: sk.DisableModelInvocation})
		}
		got := section(BuildSystemPrompt(SystemPromptOptions{Cwd: o.Cwd, Tools: tools, Skills: skills}))
		want := strings.ReplaceAll(section(run.SystemPrompt), "$WORK", work)
		if want == "" || got != want {
			t.Errorf("%s:\n got %q\n pi  %q", run.Name, got, want)
		}
	}
}

// Reload takes the context files ReloadPrompt reads again: the next request's system prompt has them
// (a patch of the declared prompt), and the resources are read again.
func TestReloadTakesNewContextFiles(t *testing.T) {
	var agents atomic.Value
	agents.Store("Use tabs.")
	f := newResourceFixture(t, []scriptedTurn{textTurn("a"), textTurn("b")}, func(o *Options) {
		o.Prompt = SystemPromptOptions{ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: "Use tabs."}}}
		o.ReloadPrompt = func() (SystemPromptOptions, error) {
			return SystemPromptOptions{ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: agents.Load().(string)}}}, nil
		}
	})
	if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	agents.Store("Use spaces.")
	if err := f.s.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	f.script.mu.Lock()
	first, second := f.script.requests[0].SystemPrompt, f.script.requests[1].SystemPrompt
	f.script.mu.Unlock()
	if !strings.Contains(first, "Use tabs.") || !strings.Contains(second, "Use spaces.") || strings.Contains(second, "Use tabs.") {
		t.Errorf("system prompts:\n%s\n---\n%s", first, second)
	}
	if n := f.loads.Load(); n != 2 {
		t.Errorf("resources read %d times", n)
	}
}
