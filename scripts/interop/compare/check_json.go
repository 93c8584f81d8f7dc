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
