package demo

import (
	"testing"
)

// FuzzAnswer feeds arbitrary text as a prompt, a tool result and a steering message: the demo must
// always answer with a well-formed stream, never panic.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{"", "list the files", "read README.md", "run `go version`", "summarise this project",
		"<conversation>\n[User]: x\n</conversation>\n\n## Goal\n", "<file name=\"a\">\nb\n</file>", "é", "`", "```\n",
		"Command exited with code 9", "\n\n[Showing lines 1-2 of 3. Use offset=3 to continue.]", "total 0\ndrwx------ 2 a b 0 Jan 1 00:00 .\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []*chat{
			newChat(defaultTools()...).user(s),
			newChat("ls", "bash").user("run "+s).call("", "c", "bash", `{"command":"ls"}`).result("c", s),
			newChat("read").user("read a.md").call("", "c", "read", `{"path":"a.md"}`).result("c", s).user(s),
		} {
			c.reasoning = "high"
			parseSSE(t, post(t, c.body()))
		}
	})
}
