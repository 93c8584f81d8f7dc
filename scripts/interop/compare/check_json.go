package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// pair creates the two workspaces of a check under out/<name>/{pi,pi-go}.
func (c *checker) pair(name string) (*workspace, *workspace, error) {
	wa, err := newWorkspace(filepath.Join(c.out, name, "pi"), c.pi, "")
	if err != nil {
		return nil, nil, err
	}
	wb, err := newWorkspace(filepath.Join(c.out, name, "pi-go"), c.pigo, "")
	if err != nil {
		wa.close()
		return nil, nil, err
	}
	return wa, wb, nil
}

func args(s string) json.RawMessage { return json.RawMessage(s) }

// toolRun is the four answers of pi's recorded sample: bash, read, bash, then a text answer.
func toolRun() []scenario.Spec {
	return []scenario.Spec{
		{Text: "Let me look around.", ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"ls -la"}`)}}},
		{ToolCalls: []scenario.ToolCall{{Name: "read", Arguments: args(`{"path":"README.md"}`)}}},
		{ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"wc -l notes.txt src/main.go"}`)}}},
		{Text: "A tiny demo project: a README, notes and a Go main.", Pieces: 4},
	}
}

// checkJSONMode runs the same prompts in --mode json and compares the events, the request bodies and
// the session files; then the first request of other configurations (all seven tools, a reasoning
// model with a thinking level, a custom and an appended system prompt).
func checkJSONMode(c *checker) error {
	wa, wb, err := c.pair("json")
	if err != nil {
		return err
	}
	defer wa.close()
	defer wb.close()
	outs := map[*workspace]result{}
	for _, w := range []*workspace{wa, wb} {
		w.script(toolRun()...)
		res, err := w.run("--mode", "json", "--model", "mock/mock-model", "summarise this project")
		if err != nil {
			return err
		}
		os.WriteFile(filepath.Join(w.root, "stdout.jsonl"), []byte(res.stdout), 0o644)
		os.WriteFile(filepath.Join(w.root, "stderr.txt"), []byte(res.stderr), 0o644)
		outs[w] = res
	}
	if outs[wa].code != outs[wb].code || outs[wa].stderr != outs[wb].stderr {
		c.rep.diffs("json mode exit", []string{fmt.Sprintf("pi exit %d stderr %q, pi-go exit %d stderr %q",
			outs[wa].code, outs[wa].stderr, outs[wb].code, outs[wb].stderr)})
	}
	ea, errA := parseLines([]byte(outs[wa].stdout))
	eb, errB := parseLines([]byte(outs[wb].stdout))
	if errA != nil || errB != nil {
		return fmt.Errorf("json output: pi %v, pi-go %v", errA, errB)
	}
	c.compareEvents("json events (tool run)", ea, eb, newNormaliser(wa.root), newNormaliser(wb.root))
	c.compareRequests("json requests (tool run)", wa.requests(), wb.requests(), wa, wb)
	fa, fb := wa.sessionFiles(), wb.sessionFiles()
	if len(fa) != 1 || len(fb) != 1 {
		c.rep.diffs("json session files", []string{fmt.Sprintf("pi wrote %d, pi-go %d", len(fa), len(fb))})
	} else {
		c.compareSessionFiles("json session file", fa[0], fb[0], wa, wb)
	}

	if err := c.toolsRun(); err != nil {
		return err
	}
	if err := c.reasoningReplay(); err != nil {
		return err
	}

	variants := []struct {
		name string
		args []string
	}{
		{"all seven tools", []string{"--tools", "read,bash,edit,write,grep,find,ls"}},
		{"read-only tools", []string{"--tools", "read,grep,find,ls"}},
		{"no tools", []string{"--no-tools"}},
		{"reasoning model, thinking high", []string{"--model", "mock/mock-reasoner", "--thinking", "high"}},
		{"reasoning model, thinking off", []string{"--model", "mock/mock-reasoner", "--thinking", "off"}},
		{"reasoning model, thinking xhigh", []string{"--model", "mock/mock-reasoner:xhigh"}},
		{"custom and appended system prompt", []string{"--system-prompt", "You are terse.", "--append-system-prompt", "Answer in English.", "--append-system-prompt", "No emojis."}},
	}
	for i, v := range variants {
		wa, wb, err := c.pair(fmt.Sprintf("json-variant-%d", i+1))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(wa.proj, "AGENTS.md"), []byte("Use tabs.\n"), 0o644); err != nil {
			return err
		}
		os.WriteFile(filepath.Join(wb.proj, "AGENTS.md"), []byte("Use tabs.\n"), 0o644)
		var evs [2][]*Obj
		for k, w := range []*workspace{wa, wb} {
			w.script(scenario.Spec{Reasoning: "Thinking it over.", Text: "Hello.", Pieces: 2})
			a := append([]string{"--mode", "json", "--no-session"}, v.args...)
			if !contains(v.args, "--model") {
				a = append(a, "--model", "mock/mock-model")
			}
			res, err := w.run(append(a, "hi")...)
			if err != nil {
				return err
			}
			if res.code != 0 {
				c.rep.note("%s: %s exit %d: %s", v.name, w.prog.name, res.code, strings.TrimSpace(res.stderr))
			}
			evs[k], _ = parseLines([]byte(res.stdout))
		}
		c.compareRequests("first request, "+v.name, wa.requests(), wb.requests(), wa, wb)
		c.compareEvents("json events, "+v.name, evs[0], evs[1], newNormaliser(wa.root), newNormaliser(wb.root))
		wa.close()
		wb.close()
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
	0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99,
	0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82}

// toolsRun calls every built-in tool once or more (results, errors, details, images) in --mode json and
// compares events, requests and session files; once on a text-only model, once on one that takes
// images.
func (c *checker) toolsRun() error {
	call := func(name, a string) scenario.ToolCall { return scenario.ToolCall{Name: name, Arguments: args(a)} }
	answers := []scenario.Spec{
		{ToolCalls: []scenario.ToolCall{
			call("write", `{"path":"src/util.go","content":"package main\n\nfunc add(a, b int) int { return a + b }\n"}`),
			call("read", `{"path":"notes.txt","offset":2,"limit":1}`),
		}},
		{ToolCalls: []scenario.ToolCall{
			call("edit", `{"path":"src/util.go","edits":[{"oldText":"a + b","newText":"b + a"}]}`),
			call("edit", `{"path":"src/util.go","edits":[{"oldText":"not there","newText":"x"}]}`),
		}},
		{ToolCalls: []scenario.ToolCall{
			// One match only: pi lists matches in ripgrep's traversal order. find is left out: pi runs
			// the system's fd, and Debian's fdfind 8 rejects its --no-require-git.
			call("grep", `{"pattern":"func add","path":"src","context":1}`),
			call("grep", `{"pattern":"NOTES","ignoreCase":true,"glob":"*.txt"}`),
			call("ls", `{}`),
			call("ls", `{"path":"src","limit":1}`),
		}},
		{ToolCalls: []scenario.ToolCall{
			call("read", `{"path":"missing.txt"}`),
			call("bash", `{"command":"echo out; echo err >&2; exit 2"}`),
			call("read", `{"path":"tiny.png"}`),
		}},
		{ToolCalls: []scenario.ToolCall{
			call("nosuchtool", `{"x":1}`),
			call("read", `{"offset":"3"}`),
			call("bash", `{"command":"printf 'a\\033[31mred\\033[0m\\r\\nb'","timeout":5}`),
		}},
		{Text: "All done."},
	}
	for _, model := range []string{"mock/mock-model", "mock/mock-vision"} {
		wa, wb, err := c.pair("json-tools-" + strings.TrimPrefix(model, "mock/"))
		if err != nil {
			return err
		}
		var evs [2][]*Obj
		for k, w := range []*workspace{wa, wb} {
			if err := os.WriteFile(filepath.Join(w.proj, "tiny.png"), tinyPNG, 0o644); err != nil {
				return err
			}
			os.Chtimes(filepath.Join(w.proj, "tiny.png"), fixedTime, fixedTime)
			w.script(answers...)
			res, err := w.run("--mode", "json", "--model", model, "--tools", "read,bash,edit,write,grep,find,ls", "use every tool")
			if err != nil {
				return err
			}
			os.WriteFile(filepath.Join(w.root, "stdout.jsonl"), []byte(res.stdout), 0o644)
			if res.code != 0 {
				c.rep.note("tools run on %s: %s exit %d: %s", model, w.prog.name, res.code, strings.TrimSpace(res.stderr))
			}
			evs[k], _ = parseLines([]byte(res.stdout))
		}
		c.compareEvents("json events, tools on "+model, evs[0], evs[1], newNormaliser(wa.root), newNormaliser(wb.root))
		c.compareRequests("requests, tools on "+model, wa.requests(), wb.requests(), wa, wb)
		if fa, fb := wa.sessionFiles(), wb.sessionFiles(); len(fa) == 1 && len(fb) == 1 {
			c.compareSessionFiles("session file, tools on "+model, fa[0], fb[0], wa, wb)
		}
		wa.close()
		wb.close()
	}
	return nil
}

// reasoningReplay: a reasoning model thinks (in each of the three field names servers use) and calls a
// tool, so the next request replays the thinking in the field it came in; then the same history is
// sent to a model without reasoning (thinking becomes text).
func (c *checker) reasoningReplay() error {
	for _, field := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		wa, wb, err := c.pair("json-reasoning-" + field)
		if err != nil {
			return err
		}
		var evs [2][]*Obj
		for k, w := range []*workspace{wa, wb} {
			w.script(
				scenario.Spec{Reasoning: "I should list the files.", ReasoningField: field, Pieces: 2, Text: "Listing.",
					ToolCalls: []scenario.ToolCall{{Name: "ls", Arguments: args(`{}`)}}},
				scenario.Spec{Reasoning: "Done thinking.", ReasoningField: field, Text: "Three entries."},
				scenario.Spec{Text: "Plain answer."},
			)
			res, err := w.run("--mode", "json", "--model", "mock/mock-reasoner", "--thinking", "low", "--tools", "ls", "list")
			if err != nil {
				return err
			}
			evs[k], _ = parseLines([]byte(res.stdout))
			// The same session continued on a model without reasoning.
			if res, err = w.run("-c", "--mode", "json", "--model", "mock/mock-model", "--tools", "ls", "again"); err != nil {
				return err
			}
			more, _ := parseLines([]byte(res.stdout))
			evs[k] = append(evs[k], more...)
		}
		c.compareEvents("json events, reasoning in "+field, evs[0], evs[1], newNormaliser(wa.root), newNormaliser(wb.root))
		c.compareRequests("requests, reasoning in "+field, wa.requests(), wb.requests(), wa, wb)
		wa.close()
		wb.close()
	}
	return nil
}
