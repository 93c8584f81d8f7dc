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

// jsonToolRun runs the tool run in --mode json in w and keeps its stdout and stderr in w's root.
func jsonToolRun(w *workspace) (result, error) {
	w.script(toolRun()...)
	res, err := w.run("--mode", "json", "--model", "mock/mock-model", "summarise this project")
	if err != nil {
		return res, err
	}
	os.WriteFile(filepath.Join(w.root, "stdout.jsonl"), []byte(res.stdout), 0o644)
	os.WriteFile(filepath.Join(w.root, "stderr.txt"), []byte(res.stderr), 0o644)
	return res, nil
}

// checkJSONMode runs the same prompts in --mode json and compares the events, the request bodies and
// the session files; then the first request of other configurations (all seven tools, a reasoning
// model with a thinking level, a custom and an appended system prompt, and for pi 1.6 its new flags,
// skills, project trust and the bash tool's environment).
func checkJSONMode(c *checker) error {
	wa, wb, err := c.pair("json")
	if err != nil {
		return err
	}
	defer wa.close()
	defer wb.close()
	outs := map[*workspace]result{}
	for _, w := range []*workspace{wa, wb} {
		res, err := jsonToolRun(w)
		if err != nil {
			return err
		}
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
	c.compareEvents("json events (tool run)", ea, eb, c.norm(wa.root), c.norm(wb.root))
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
	for i, v := range jsonVariants() {
		if v.newer && !c.ver.newerChecks {
			continue
		}
		if err := c.jsonVariant(fmt.Sprintf("json-variant-%d", i+1), v); err != nil {
			return err
		}
	}
	return nil
}

// variant is one --mode json run whose first request and events are compared.
type variant struct {
	name string
	args []string
	// message is the prompt (default "hi"); answers the scripted answers (default one with reasoning).
	message string
	answers []scenario.Spec
	// setup prepares the workspace (after AGENTS.md "Use tabs." is written into the project).
	setup func(w *workspace) error
	// session keeps the session (its file is compared) instead of --no-session; allRequests compares
	// every request, not only the first.
	session, allRequests bool
	// newer: only for pi versions with newerChecks (flags and files older pi does not know).
	newer bool
}

func jsonVariants() []variant {
	return []variant{
		{name: "all seven tools", args: []string{"--tools", "read,bash,edit,write,grep,find,ls"}},
		{name: "read-only tools", args: []string{"--tools", "read,grep,find,ls"}},
		{name: "no tools", args: []string{"--no-tools"}},
		{name: "reasoning model, thinking high", args: []string{"--model", "mock/mock-reasoner", "--thinking", "high"}},
		{name: "reasoning model, thinking off", args: []string{"--model", "mock/mock-reasoner", "--thinking", "off"}},
		{name: "reasoning model, thinking xhigh", args: []string{"--model", "mock/mock-reasoner:xhigh"}},
		{name: "custom and appended system prompt", args: []string{"--system-prompt", "You are terse.", "--append-system-prompt", "Answer in English.", "--append-system-prompt", "No emojis."}},
		// pi 1.6: skills, context files, project trust, new flags, the bash tool's environment.
		{name: "a global skill", setup: writeSkill("agent", "skills/demo-skill"), newer: true},
		{name: "AGENTS.override.md beside AGENTS.md", setup: writeFile("proj", "AGENTS.override.md", "Use spaces, not tabs.\n"), newer: true},
		{name: "project .pi resources, untrusted", setup: projectResources, session: true, newer: true},
		{name: "project .pi resources, --approve", args: []string{"--approve"}, setup: projectResources, session: true, newer: true},
		{name: "project .pi resources, trusted in trust.json", setup: func(w *workspace) error {
			if err := projectResources(w); err != nil {
				return err
			}
			trust, _ := json.Marshal(map[string]bool{w.proj: true})
			return os.WriteFile(filepath.Join(w.agent, "trust.json"), trust, 0o644)
		}, session: true, newer: true},
		{name: "--exclude-tools bash", args: []string{"-xt", "bash"}, newer: true},
		{name: "--tools +grep,-bash", args: []string{"--tools", "+grep,-bash"}, newer: true},
		{name: "--tools with a pattern", args: []string{"--tools", "gr*,read"}, newer: true},
		{name: "reasoning model, thinking max", args: []string{"--model", "mock/mock-reasoner", "--thinking", "max"}, newer: true},
		{name: "-- ends the options", args: []string{"--"}, message: "--version is a message here", newer: true},
		{name: "--session-id and --name", args: []string{"--session-id", "interop-session-1", "--name", "interop name"}, session: true, newer: true},
		{name: "bash tool environment", answers: []scenario.Spec{
			{ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"env | grep -E '^(AI_AGENT|PI_[A-Z_]+)=' | sort"}`)}}},
			{Text: "That is the environment."},
		}, message: "show the environment", session: true, allRequests: true, newer: true},
	}
}

// writeFile returns a setup writing content to rel under the workspace's proj or agent dir.
func writeFile(base, rel, content string) func(w *workspace) error {
	return func(w *workspace) error {
		dir := w.proj
		if base == "agent" {
			dir = w.agent
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
}

// writeSkill returns a setup writing a SKILL.md into dir (relative to proj or agent).
func writeSkill(base, dir string) func(w *workspace) error {
	name := filepath.Base(dir)
	return writeFile(base, filepath.Join(dir, "SKILL.md"), "---\nname: "+name+"\ndescription: Explains the demo project's layout. Use when asked where things are.\n---\n\n# "+name+"\n\nRead README.md first, then src/.\n")
}

// projectResources writes the project resources pi 1.6 loads only for a trusted project: an
// APPEND_SYSTEM.md, a skill and settings.
func projectResources(w *workspace) error {
	for _, f := range []func(*workspace) error{
		writeFile("proj", ".pi/APPEND_SYSTEM.md", "Project rule: mention the README.\n"),
		writeSkill("proj", ".pi/skills/project-skill"),
		writeFile("proj", ".pi/settings.json", `{"hideThinkingBlock":true}`+"\n"),
	} {
		if err := f(w); err != nil {
			return err
		}
	}
	return nil
}

// jsonVariant runs one variant in both programs and compares requests, events and session files.
func (c *checker) jsonVariant(name string, v variant) error {
	wa, wb, err := c.pair(name)
	if err != nil {
		return err
	}
	defer wa.close()
	defer wb.close()
	var evs [2][]*Obj
	for k, w := range []*workspace{wa, wb} {
		if err := os.WriteFile(filepath.Join(w.proj, "AGENTS.md"), []byte("Use tabs.\n"), 0o644); err != nil {
			return err
		}
		if v.setup != nil {
			if err := v.setup(w); err != nil {
				return err
			}
		}
		answers := v.answers
		if answers == nil {
			answers = []scenario.Spec{{Reasoning: "Thinking it over.", Text: "Hello.", Pieces: 2}}
		}
		w.script(answers...)
		a := []string{"--mode", "json"}
		if !v.session {
			a = append(a, "--no-session")
		}
		a = append(a, v.args...)
		if !contains(v.args, "--model") {
			a = append(a, "--model", "mock/mock-model")
		}
		msg := v.message
		if msg == "" {
			msg = "hi"
		}
		if contains(v.args, "--") {
			// Everything after -- is a message: the options go first.
			a = append(removeAll(a, "--"), "--")
		}
		res, err := w.run(append(a, msg)...)
		if err != nil {
			return err
		}
		os.WriteFile(filepath.Join(w.root, "stdout.jsonl"), []byte(res.stdout), 0o644)
		os.WriteFile(filepath.Join(w.root, "stderr.txt"), []byte(res.stderr), 0o644)
		if res.code != 0 {
			c.rep.note("%s: %s exit %d: %s", v.name, w.prog.name, res.code, strings.TrimSpace(res.stderr))
		}
		evs[k], _ = parseLines([]byte(res.stdout))
	}
	ra, rb := wa.requests(), wb.requests()
	what := "first request, " + v.name
	if v.allRequests {
		what = "requests, " + v.name
	} else {
		ra, rb = ra[:min(1, len(ra))], rb[:min(1, len(rb))]
	}
	c.compareRequests(what, ra, rb, wa, wb)
	c.compareEvents("json events, "+v.name, evs[0], evs[1], c.norm(wa.root), c.norm(wb.root))
	if v.session {
		fa, fb := wa.sessionFiles(), wb.sessionFiles()
		if len(fa) != 1 || len(fb) != 1 {
			c.rep.diffs("session files, "+v.name, []string{fmt.Sprintf("pi wrote %d, pi-go %d", len(fa), len(fb))})
		} else {
			c.compareSessionFiles("session file, "+v.name, fa[0], fb[0], wa, wb)
			// The names, their times and random ids masked (a --session-id must show).
			mask := func(p string) string {
				return uuidRe.ReplaceAllString(fileTimeRe.ReplaceAllString(filepath.Base(p), "<ftime>_"), "<uuid>")
			}
			if ma, mb := mask(fa[0]), mask(fb[0]); ma != mb {
				c.rep.diffs("session file name, "+v.name, []string{fmt.Sprintf("pi %s, pi-go %s", ma, mb)})
			}
		}
	}
	return nil
}

func removeAll(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
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
		c.compareEvents("json events, tools on "+model, evs[0], evs[1], c.norm(wa.root), c.norm(wb.root))
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
		c.compareEvents("json events, reasoning in "+field, evs[0], evs[1], c.norm(wa.root), c.norm(wb.root))
		c.compareRequests("requests, reasoning in "+field, wa.requests(), wb.requests(), wa, wb)
		wa.close()
		wb.close()
	}
	return nil
}
