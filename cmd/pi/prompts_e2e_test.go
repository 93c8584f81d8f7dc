package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func writeAgentFile(t *testing.T, p *project, rel, content string) {
	t.Helper()
	path := filepath.Join(p.agentDir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pi setup copied over works from the command line: ~/.pi/agent/prompts/review.md expands, a skill
// from ~/.pi/agent/skills is listed in the system prompt and /skill:name sends its instructions;
// --skill and --prompt-template add more, --no-skills and --no-prompt-templates turn discovery off;
// a template with malformed frontmatter is named on stderr.
func TestTemplatesAndSkillsFromTheCommandLine(t *testing.T) {
	p := mockProject(t)
	writeAgentFile(t, p, "prompts/review.md", "---\ndescription: Review\n---\nReview $1 for ${2:-bugs}.")
	writeAgentFile(t, p, "prompts/broken.md", "---\ndescription: [oops\n---\nx")
	writeAgentFile(t, p, "skills/pdf-tools/SKILL.md", "---\nname: pdf-tools\ndescription: Work with PDFs\nlicense: MIT\nallowed-tools: Read\n---\nUse pypdf.\n")
	p.write("extra/standup.md", "Stand-up since ${1:-yesterday}")
	p.write("extra-skill/SKILL.md", "---\nname: extra-skill\ndescription: Given on the command line\n---\nExtra.\n")
	base := []string{"--model", "mock/mock-model", "--no-session", "-p"}

	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	r := p.run("", append(base, "/review README.md")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := requestMessages(t, p.server, 1)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "Review README.md for bugs." {
		t.Errorf("sent %q", got)
	}
	if system := contentText(msgs[0]["content"]); !strings.Contains(system, "<name>pdf-tools</name>") ||
		!strings.Contains(system, "<location>"+filepath.Join(p.agentDir, "skills/pdf-tools/SKILL.md")+"</location>") {
		t.Errorf("system prompt without the skill:\n%s", system)
	}
	if want := filepath.Join(p.agentDir, "prompts/broken.md") + ": invalid frontmatter"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not name the malformed template:\n%s", r.stderr)
	}

	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	if r := p.run("", append(base, "--skill", "extra-skill", "--prompt-template", "extra/standup.md", "/skill:extra-skill go")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs = requestMessages(t, p.server, 2)
	dir := filepath.Join(p.dir, "extra-skill")
	if got, want := contentText(msgs[len(msgs)-1]["content"]), `<skill name="extra-skill" location="`+dir+`/SKILL.md">`+
		"\nReferences are relative to "+dir+".\n\nExtra.\n</skill>\n\ngo"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}

	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	if r := p.run("", append(base, "-ns", "-np", "--prompt-template", "extra/standup.md", "/review x")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	} else if strings.Contains(r.stderr, "broken.md") {
		t.Errorf("--no-prompt-templates still read the templates: %s", r.stderr)
	}
	msgs = requestMessages(t, p.server, 3)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "/review x" {
		t.Errorf("with discovery off, sent %q", got)
	}
	if system := contentText(msgs[0]["content"]); strings.Contains(system, "<skills>") {
		t.Errorf("--no-skills: the system prompt lists skills")
	}
}
