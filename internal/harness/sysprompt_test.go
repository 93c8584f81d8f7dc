package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// pi16SystemPrompt reads, from one of pi 1.6.0's recordings (testdata/pi16), the sections of the
// system message its session starts with and the system prompt of its first request.
func pi16SystemPrompt(t *testing.T, dir, request string) ([]provider.PromptSection, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/pi16", dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var sections []provider.PromptSection
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(e.Message), `{"role":"system"`) {
			continue
		}
		m, err := provider.UnmarshalMessage(e.Message)
		if err != nil {
			t.Fatal(err)
		}
		sections = m.(*provider.SystemMessage).Sections
		break
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	data, err = os.ReadFile(filepath.Join("../../testdata/pi16", dir, request))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	var prompt string
	if len(sections) == 0 || req.Messages[0].Role != "system" || json.Unmarshal(req.Messages[0].Content, &prompt) != nil {
		t.Fatalf("%s: no system message or prompt", dir)
	}
	return sections, prompt
}

// withoutDocs drops pi's <docs> section, which points at pi's own installed documentation: pi-go has
// none, so its prompt has no such section.
func withoutDocs(t *testing.T, sections []provider.PromptSection, prompt string) ([]provider.PromptSection, string) {
	t.Helper()
	var out []provider.PromptSection
	docs := ""
	for _, s := range sections {
		if s.Name == "docs" {
			docs = s.Text
			continue
		}
		out = append(out, s)
	}
	if docs == "" || !strings.Contains(prompt, "\n\n"+docs) {
		t.Fatal("pi's prompt has no docs section")
	}
	return out, strings.Replace(prompt, "\n\n"+docs, "", 1)
}

// The sections and the prompt text are pi 1.6.0's for the same project, byte for byte, apart from pi's
// <docs> section.
func TestSystemPromptIsPi16s(t *testing.T) {
	defaultTools := []string{"read", "bash", "edit", "write"}
	agents := []ContextFile{{Path: "/tmp/pi-fixture/proj/AGENTS.md", Content: "Use tabs.\n"}}
	skill := Skill{Name: "demo-skill", Description: "Explains the demo project's layout. Use when asked where things are.",
		FilePath: "/tmp/pi-fixture/agent/skills/demo-skill/SKILL.md"}
	cases := []struct {
		dir, request string
		opts         SystemPromptOptions
	}{
		{"first-request/all-tools", "request.json", SystemPromptOptions{Tools: []string{"read", "bash", "edit", "write", "grep", "find", "ls"}}},
		{"first-request/agents-md", "request.json", SystemPromptOptions{Tools: defaultTools, ContextFiles: agents}},
		{"first-request/agents-md-skill", "request.json", SystemPromptOptions{Tools: defaultTools, ContextFiles: agents, Skills: []Skill{skill}}},
		{"json-tool-run", "requests/001.json", SystemPromptOptions{Tools: defaultTools}},
		{"json-tool-run", "requests/004.json", SystemPromptOptions{Tools: defaultTools}},
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+c.request, func(t *testing.T) {
			piSections, piPrompt := pi16SystemPrompt(t, c.dir, c.request)
			wantSections, wantPrompt := withoutDocs(t, piSections, piPrompt)
			c.opts.Cwd = "/tmp/pi-fixture/proj"
			got := BuildSystemPromptSections(c.opts)
			if !reflect.DeepEqual(got, wantSections) {
				for i := range max(len(got), len(wantSections)) {
					var g, w provider.PromptSection
					if i < len(got) {
						g = got[i]
					}
					if i < len(wantSections) {
						w = wantSections[i]
					}
					if g != w {
						t.Errorf("section %d\n got %+v\nwant %+v", i, g, w)
					}
				}
			}
			if prompt := BuildSystemPrompt(c.opts); prompt != wantPrompt {
				t.Errorf("prompt\n got %q\nwant %q", prompt, wantPrompt)
			}
		})
	}
}

func TestSystemPromptSectionVariants(t *testing.T) {
	names := func(ss []provider.PromptSection) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	section := func(ss []provider.PromptSection, name string) string {
		for _, s := range ss {
			if s.Name == name {
				return s.Text
			}
		}
		return ""
	}
	skills := []Skill{{Name: "a&b", Description: `say "<hi>"`, FilePath: "/s/SKILL.md"}, {Name: "hidden", DisableModelInvocation: true}}

	// No tools: (none), only the general rules, and no skills (nothing can read them).
	ss := BuildSystemPromptSections(SystemPromptOptions{Cwd: `C:\work\proj`, Skills: skills})
	if names(ss) != "preamble,tools,rules,cwd" || section(ss, "tools") != "<tools>\n(none)\n\nAdditional tools may be available.\n</tools>" ||
		section(ss, "rules") != "<rules>\n- Be concise in your responses\n- Show file paths clearly when working with files\n</rules>" ||
		section(ss, "cwd") != "<cwd>\nC:/work/proj\n</cwd>" {
		t.Errorf("no tools: %+v", ss)
	}

	// A custom prompt replaces the preamble, tools and rules; the addendum joins appends; bash reads
	// skills when read is off; an extension tool's prompt lines count.
	ss = BuildSystemPromptSections(SystemPromptOptions{
		Cwd: "/p", CustomPrompt: "CUSTOM", AppendPrompts: []string{"A1", "A2"}, Tools: []string{"bash", "todo"}, Skills: skills,
		ContextFiles: []ContextFile{{Path: "/AGENTS.md", Content: "g"}, {Path: "/p/AGENTS.md", Content: "p"}},
	})
	if names(ss) != "preamble,addendum,project_context,skills,cwd" || section(ss, "preamble") != "CUSTOM" ||
		section(ss, "addendum") != "<addendum>\nA1\n\nA2\n</addendum>" ||
		section(ss, "project_context") != "<project_context>\nProject-specific instructions and guidelines:\n\n"+
			"<project_instructions path=\"/AGENTS.md\">\ng\n</project_instructions>\n\n"+
			"<project_instructions path=\"/p/AGENTS.md\">\np\n</project_instructions>\n</project_context>" {
		t.Errorf("custom: %+v", ss)
	}
	wantSkills := "<skills>\nThe following skills provide specialized instructions for specific tasks.\n" +
		"Use bash to load a skill's file when the task matches its description.\n" +
		"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n" +
		"<available_skills>\n  <skill>\n    <name>a&amp;b</name>\n    <description>say &quot;&lt;hi&gt;&quot;</description>\n" +
		"    <location>/s/SKILL.md</location>\n  </skill>\n</available_skills>\n</skills>"
	if got := section(ss, "skills"); got != wantSkills {
		t.Errorf("skills\n got %q\nwant %q", got, wantSkills)
	}

	ss = BuildSystemPromptSections(SystemPromptOptions{Cwd: "/p", Tools: []string{"bash", "todo", "grep"},
		ToolPrompts: map[string]ToolPrompt{"todo": {Snippet: "Track tasks", Guidelines: []string{"Use todo for plans", " "}}}})
	if got := section(ss, "tools"); got != "<tools>\n- bash: Execute bash commands (ls, grep, find, etc.)\n- todo: Track tasks\n"+
		"- grep: Search file contents for patterns (respects .gitignore)\n\nAdditional tools may be available.\n</tools>" {
		t.Errorf("tools %q", got)
	}
	// grep present: no shell hint
	if got := section(ss, "rules"); got != "<rules>\n- You can inspect PI_* environment variables for current model and session details.\n"+
		"- Use todo for plans\n- Be concise in your responses\n- Show file paths clearly when working with files\n</rules>" {
		t.Errorf("rules %q", got)
	}
	// An empty append adds no section.
	if ss := BuildSystemPromptSections(SystemPromptOptions{Cwd: "/p", AppendPrompts: []string{""}}); names(ss) != "preamble,tools,rules,cwd" {
		t.Errorf("empty append: %s", names(ss))
	}
}

func TestLoadContextFilesOrder(t *testing.T) {
	agent := t.TempDir()
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, "AGENTS.md"), "global")
	write(filepath.Join(root, "CLAUDE.md"), "root-claude")
	write(filepath.Join(root, "a", "AGENTS.md"), "a-agents")
	write(filepath.Join(root, "a", "CLAUDE.md"), "a-claude (ignored: AGENTS.md wins)")
	write(filepath.Join(sub, "AGENTS.md"), "b")
	files, errs := LoadContextFiles(agent, sub)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	if strings.Join(got, "|") != "global|root-claude|a-agents|b" {
		t.Errorf("order = %v", got)
	}
}

func TestResolvePromptText(t *testing.T) {
	f := filepath.Join(t.TempDir(), "p.md")
	if err := os.WriteFile(f, []byte("from file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := ResolvePromptText(f); s != "from file" {
		t.Errorf("file not read: %q", s)
	}
	if err := os.WriteFile(f, []byte("\uFEFFwith a BOM"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := ResolvePromptText(f); s != "with a BOM" {
		t.Errorf("byte order mark kept: %q", s)
	}
	if s, _ := ResolvePromptText("just text"); s != "just text" {
		t.Errorf("text changed: %q", s)
	}
}
