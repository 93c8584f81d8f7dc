package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// cliCase is one invocation run in both programs with the same scripted answers.
type cliCase struct {
	name string
	args []string
	// answers are scripted on the server before the run.
	answers []scenario.Spec
	// settings, when set, is written as agent/settings.json.
	settings string
	// setup may change the workspace (e.g. point models.json at a closed port).
	setup func(w *workspace) error
	// json compares stdout as an event stream instead of as text.
	json bool
	// stdin is piped in when set.
	stdin string
	// combined compares stdout and stderr together: with stdin not a terminal pi 0.73.1 sends
	// what it prints to stdout to stderr (see the README).
	combined bool
	// env is added to the environment.
	env []string
	// newer: only for pi versions with newerChecks.
	newer bool
}

// closedPortURL returns a loopback URL nothing listens on.
func closedPortURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1", nil
}

// apiKey returns a setup setting the mock provider's apiKey in models.json.
func apiKey(value string) func(w *workspace) error {
	return func(w *workspace) error {
		p := filepath.Join(w.agent, "models.json")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		v, _ := json.Marshal(value)
		return os.WriteFile(p, []byte(strings.Replace(string(data), `"apiKey":"mock-key"`, `"apiKey":`+string(v), 1)), 0o644)
	}
}

// noRetry turns the agent's automatic retry off.
const noRetry = `{"retry":{"enabled":false}}`

// fastRetry makes retries quick so error paths finish in milliseconds.
const fastRetry = `{"retry":{"enabled":true,"maxRetries":1,"baseDelayMs":1}}`

// checkCLI compares print-mode exit codes, stdout and stderr for errors, JSON-mode error events, and
// --list-models.
func checkCLI(c *checker) error {
	refused, err := closedPortURL()
	if err != nil {
		return err
	}
	pointAt := func(url string) func(w *workspace) error {
		return func(w *workspace) error {
			p := filepath.Join(w.agent, "models.json")
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(data), w.srv.URL, url, 1)), 0o644)
		}
	}
	noModels := func(w *workspace) error { return os.Remove(filepath.Join(w.agent, "models.json")) }
	writePNG := func(w *workspace) error { return os.WriteFile(filepath.Join(w.proj, "tiny.png"), tinyPNG, 0o644) }
	unauthorized := scenario.Spec{Status: 401, Error: "Incorrect API key provided: mock-key."}
	serverErr := scenario.Spec{Status: 500, Error: "The server had an error while processing your request."}
	cases := []cliCase{
		{name: "-p success", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Hello there.\n\nSecond paragraph."}}},
		{name: "-p two messages", args: []string{"--model", "mock/mock-model", "-p", "one", "two"}, answers: []scenario.Spec{{Text: "First."}, {Text: "Second."}}},
		{name: "piped stdin and a message", args: []string{"--model", "mock/mock-model", "--mode", "json", "summarise"}, stdin: "some piped context\n", answers: []scenario.Spec{{Text: "Piped."}}, json: true},
		{name: "piped stdin alone (print mode forced)", args: []string{"--model", "mock/mock-model"}, stdin: "just stdin", answers: []scenario.Spec{{Text: "From stdin."}}},
		{name: "@file arguments", args: []string{"--model", "mock/mock-vision", "--mode", "json", "@notes.txt", "@tiny.png", "what are these?"}, answers: []scenario.Spec{{Text: "Files."}}, json: true, setup: writePNG},
		{name: "@missing file", args: []string{"--model", "mock/mock-model", "-p", "@nope.txt", "hi"}},
		{name: "json two messages", args: []string{"--model", "mock/mock-model", "--mode", "json", "one", "two"}, answers: []scenario.Spec{{Text: "First."}, {Text: "Second."}}, json: true},
		{name: "--no-session", args: []string{"--model", "mock/mock-model", "--no-session", "--mode", "json", "hi"}, answers: []scenario.Spec{{Text: "Hello."}}, json: true},
		{name: "--session-dir", args: []string{"--model", "mock/mock-model", "--session-dir", "sess", "--mode", "json", "hi"}, answers: []scenario.Spec{{Text: "Hello."}}, json: true},
		{name: "json threshold compaction after a run", args: []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"},
			answers: []scenario.Spec{{Text: "Big answer.", Usage: &[3]int{5000, 57, 0}}, {Text: "## Goal\nSummary of the big answer."}, {Text: "Second answer."}}, json: true},
		{name: "json overflow compaction and retry", args: []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"},
			answers: []scenario.Spec{{Text: "First answer."}, {Status: 400, Error: "This model's maximum context length is 20000 tokens. However, your messages resulted in 25000 tokens."},
				{Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}, json: true},
		{name: "models.json apiKey from a command, headers from the environment and literal", args: []string{"--model", "mock/mock-model", "-p", "hi"},
			answers: []scenario.Spec{{Text: "Headers."}}, setup: func(w *workspace) error {
				p := filepath.Join(w.agent, "models.json")
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				text := strings.Replace(string(data), `"apiKey":"mock-key"`,
					`"apiKey":"!printf shell-key","headers":{"X-From-Env":"HOME","X-Literal":"plain value"}`, 1)
				return os.WriteFile(p, []byte(text), 0o644)
			}},
		{name: "-p 401", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{unauthorized}},
		{name: "json 401", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{unauthorized}, json: true},
		{name: "-p 500 twice (one fast retry)", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{serverErr, serverErr}, settings: fastRetry},
		{name: "json 500 then success (one fast retry)", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{serverErr, {Text: "Recovered."}}, settings: fastRetry, json: true},
		{name: "json three 500s then success (SDK retries used up, one agent retry)", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{serverErr, serverErr, serverErr, {Text: "Recovered."}}, settings: fastRetry, json: true},
		{name: "json three 500s then success (default agent retry)", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{serverErr, serverErr, serverErr, {Text: "Recovered."}}, json: true},
		{name: "-p connection refused (one fast retry)", args: []string{"--model", "mock/mock-model", "-p", "hi"}, settings: fastRetry, setup: pointAt(refused)},
		{name: "json connection refused (one fast retry)", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, settings: fastRetry, setup: pointAt(refused), json: true},
		{name: "-p hangup after [DONE]", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Partial", End: "hangup"}}, settings: noRetry},
		{name: "json hangup mid-stream", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{{Text: "Partial answer", Pieces: 2, CutAfter: 2, End: "hangup"}}, settings: noRetry, json: true},
		{name: "json reset mid-stream", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{{Text: "Partial answer", Pieces: 2, CutAfter: 2, End: "reset"}}, settings: noRetry, json: true},
		{name: "json clean close mid-stream (no finish, no [DONE])", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{{Text: "Partial answer", Pieces: 2, CutAfter: 2}}, settings: noRetry, json: true},
		{name: "json 429 with retry-after, no agent retry", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{{Status: 429, Error: "Rate limit reached."}, {Text: "After the limit."}}, settings: noRetry, json: true},
		{name: "-p unknown model", args: []string{"--model", "mock/nope", "-p", "hi"}},
		{name: "-p unknown provider", args: []string{"--provider", "nope", "--model", "x", "-p", "hi"}},
		{name: "-p no models", args: []string{"-p", "hi"}, setup: noModels},
		{name: "-p no --model (first available)", args: []string{"-p", "hi"}, answers: []scenario.Spec{{Text: "Default model answer."}}},
		{name: "--list-models", args: []string{"--list-models"}, combined: true},
		{name: "--list-models reasoner", args: []string{"--list-models", "reasoner"}, combined: true},
		{name: "--list-models nomatch", args: []string{"--list-models", "zzz"}, combined: true},
		{name: "--list-models no models", args: []string{"--list-models"}, setup: noModels, combined: true},

		// pi 1.6: CLI errors, a length-truncated answer, models.json values naming environment variables.
		{name: "-p --provider without --model", args: []string{"--provider", "mock", "-p", "hi"}, answers: []scenario.Spec{{Text: "Provider only."}}, newer: true},
		{name: "-p --mode bogus", args: []string{"--model", "mock/mock-model", "--mode", "bogus", "-p", "hi"}, answers: []scenario.Spec{{Text: "Bogus mode."}}, newer: true},
		{name: "--mode without a value", args: []string{"--model", "mock/mock-model", "-p", "hi", "--mode"}, answers: []scenario.Spec{{Text: "No mode."}}, newer: true},
		{name: "-p answer cut at the output limit", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Cut short", Finish: "length"}}, newer: true},
		{name: "json answer cut at the output limit", args: []string{"--model", "mock/mock-model", "--mode", "json", "--no-session", "hi"}, answers: []scenario.Spec{{Text: "Cut short", Finish: "length"}}, json: true, newer: true},
		{name: "models.json apiKey a bare environment variable name", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Key."}},
			env: []string{"MOCK_KEY_VAR=key-from-env"}, setup: apiKey("MOCK_KEY_VAR"), newer: true},
		{name: "models.json apiKey $NAME", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Key."}},
			env: []string{"MOCK_KEY_VAR=key-from-env"}, setup: apiKey("$MOCK_KEY_VAR"), newer: true},
		{name: "models.json apiKey ${NAME} inside text", args: []string{"--model", "mock/mock-model", "-p", "hi"}, answers: []scenario.Spec{{Text: "Key."}},
			env: []string{"MOCK_KEY_VAR=key-from-env"}, setup: apiKey("sk-${MOCK_KEY_VAR}-x"), newer: true},
		{name: "--help", args: []string{"--help"}, combined: true, newer: true},
		// The compaction cases again with a keepRecentTokens budget pi 1.6 can compact within (with its
		// default of 20000 a 20K-window session has nothing old enough to summarise).
		{name: "json threshold compaction after a run, keepRecentTokens 1", args: []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"},
			answers:  []scenario.Spec{{Text: "Big answer.", Usage: &[3]int{5000, 57, 0}}, {Text: "## Goal\nSummary of the big answer."}, {Text: "Second answer."}},
			settings: `{` + compactSmall + `}`, json: true, newer: true},
		{name: "json overflow compaction and retry, keepRecentTokens 1", args: []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"},
			answers: []scenario.Spec{{Text: "First answer."}, {Status: 400, Error: "This model's maximum context length is 20000 tokens. However, your messages resulted in 25000 tokens."},
				{Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}, settings: `{` + compactSmall + `}`, json: true, newer: true},
	}
	for i, cs := range cases {
		if cs.newer && !c.ver.newerChecks {
			continue
		}
		wa, wb, err := c.pair(fmt.Sprintf("cli-%d", i+1))
		if err != nil {
			return err
		}
		var res [2]result
		for k, w := range []*workspace{wa, wb} {
			w.extraEnv = cs.env
			if cs.settings != "" {
				if err := os.WriteFile(filepath.Join(w.agent, "settings.json"), []byte(cs.settings), 0o644); err != nil {
					return err
				}
			}
			if cs.setup != nil {
				if err := cs.setup(w); err != nil {
					return err
				}
			}
			w.script(cs.answers...)
			if res[k], err = w.runStdin(cs.stdin, cs.args...); err != nil {
				return err
			}
			os.WriteFile(filepath.Join(w.root, "stdout"), []byte(res[k].stdout), 0o644)
			os.WriteFile(filepath.Join(w.root, "stderr"), []byte(res[k].stderr), 0o644)
			os.WriteFile(filepath.Join(w.root, "args"), []byte(strings.Join(cs.args, "\n")), 0o644)
			os.WriteFile(filepath.Join(w.root, "exit"), []byte(fmt.Sprintf("%d\n", res[k].code)), 0o644)
		}
		na, nb := c.norm(wa.root), c.norm(wb.root)
		var d []string
		if res[0].code != res[1].code {
			d = append(d, fmt.Sprintf("exit code: pi %d, pi-go %d", res[0].code, res[1].code))
		}
		if cs.combined {
			res[0].stdout, res[0].stderr = res[0].stdout+res[0].stderr, ""
			res[1].stdout, res[1].stderr = res[1].stdout+res[1].stderr, ""
		}
		if sa, sb := na.str(res[0].stderr), nb.str(res[1].stderr); sa != sb {
			d = append(d, fmt.Sprintf("stderr:\n      pi:    %q\n      pi-go: %q", sa, sb))
		}
		if cs.json {
			ea, _ := parseLines([]byte(res[0].stdout))
			eb, _ := parseLines([]byte(res[1].stdout))
			c.compareEvents(cs.name+": events", ea, eb, na, nb)
		} else if sa, sb := na.str(res[0].stdout), nb.str(res[1].stdout); sa != sb {
			d = append(d, fmt.Sprintf("stdout:\n      pi:    %q\n      pi-go: %q", sa, sb))
		}
		if len(wa.requests()) != len(wb.requests()) {
			d = append(d, fmt.Sprintf("requests: pi %d, pi-go %d", len(wa.requests()), len(wb.requests())))
		}
		c.rep.diffs(cs.name, d)
		if ha, hb := wa.headers(), wb.headers(); len(ha) > 0 && len(hb) > 0 {
			c.compareHeaders(cs.name, ha[0], hb[0])
		}
		wa.close()
		wb.close()
	}
	return nil
}
