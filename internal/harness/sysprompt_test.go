package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSystemPromptDefaultTools(t *testing.T) {
	p := BuildSystemPrompt(SystemPromptOptions{
		Cwd:   "/home/me/proj",
		Tools: []string{"read", "bash", "edit", "write"},
		Now:   time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
	})
	for _, want := range []string{
		"You are an expert coding assistant operating inside pi, a coding agent harness.",
		"Available tools:\n- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n- edit: ",
		"- write: Create or overwrite files\n\n",
		"Guidelines:\n- Use bash for file operations like ls, rg, find\n- Use read to examine files instead of cat or sed.\n- Use edit for precise changes",
		"- Use write only for new files or complete rewrites.\n- Be concise in your responses\n- Show file paths clearly when working with files",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q\n---\n%s", want, p)
		}
	}
	if !strings.HasSuffix(p, "\nCurrent date: 2026-11-30\nCurrent working directory: /home/me/proj") {
		t.Errorf("prompt must end with date and cwd:\n%s", p)
	}
}

func TestSystemPromptNoToolsAndExplorationGuideline(t *testing.T) {
	p := BuildSystemPrompt(SystemPromptOptions{Cwd: "/x"})
	if !strings.Contains(p, "Available tools:\n(none)\n") {
		t.Errorf("no tools must say (none):\n%s", p)
	}
	p = BuildSystemPrompt(SystemPromptOptions{Cwd: "/x", Tools: []string{"bash", "grep"}})
	if !strings.Contains(p, "- Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)") {
		t.Errorf("bash+grep guideline missing:\n%s", p)
	}
}

func TestSystemPromptCustomAppendAndContext(t *testing.T) {
	p := BuildSystemPrompt(SystemPromptOptions{
		Cwd:           "/x",
		CustomPrompt:  "CUSTOM",
		AppendPrompts: []string{"A1", "A2"},
		ContextFiles:  []ContextFile{{Path: "/x/AGENTS.md", Content: "be nice"}},
		Now:           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
	})
	want := "CUSTOM\n\nA1\n\nA2\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n## /x/AGENTS.md\n\nbe nice\n\n\nCurrent date: 2026-01-02\nCurrent working directory: /x"
	if p != want {
		t.Errorf("got:\n%q\nwant:\n%q", p, want)
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
	if s, _ := ResolvePromptText("just text"); s != "just text" {
		t.Errorf("text changed: %q", s)
	}
}
