package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad200Skills200Templates is discovery at startup with 200 skills (each a directory with
// SKILL.md, scripts/ and references/) and 200 templates in the user's directories. The TUI does it
// after its first frame (harness.Session reads resources on first need), so this is the cost of the
// first "/" or prompt, not of the first frame.
func BenchmarkLoad200Skills200Templates(b *testing.B) {
	dir := b.TempDir()
	agent := filepath.Join(dir, "agent")
	for i := range 200 {
		skill := filepath.Join(agent, "skills", fmt.Sprintf("group-%d", i%10), fmt.Sprintf("skill-%03d", i))
		for _, sub := range []string{"scripts", "references"} {
			if err := os.MkdirAll(filepath.Join(skill, sub), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		md := fmt.Sprintf("---\nname: skill-%03d\ndescription: Does task %d. Use when the user asks for task %d.\nlicense: MIT\n"+
			"allowed-tools: Bash(python3:*) Read\nmetadata:\n  author: bench\n  version: \"1.0\"\n---\n# Skill %d\n\nRun scripts/run.py.\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skill, "scripts", "run.py"), []byte("print('hi')\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		tpl := fmt.Sprintf("---\ndescription: Template %d\nargument-hint: \"<file> [focus]\"\n---\nLook at $1 with a focus on ${2:-everything}.\n", i)
		if err := os.MkdirAll(filepath.Join(agent, "prompts"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(agent, "prompts", fmt.Sprintf("tpl-%03d.md", i)), []byte(tpl), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o := Options{AgentDir: agent, Cwd: dir, Home: filepath.Join(dir, "home")}
	if set := Load(o); len(set.Skills) != 200 || len(set.Templates) != 200 || len(set.Diagnostics) != 0 {
		b.Fatalf("loaded %d skills, %d templates, %v", len(set.Skills), len(set.Templates), set.Diagnostics)
	}
	b.ReportAllocs()
	for b.Loop() {
		Load(o)
	}
}
