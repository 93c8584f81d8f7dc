package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/resources"
)

// recordedRun is the "trusted" run of testdata/pi16/prompts/record.json: pi 1.6.0's get_commands and
// the user messages it sent, for the workspace of testdata/resources.
type recordedRun struct {
	Name     string           `json:"name"`
	Cases    []string         `json:"cases"`
	Commands []map[string]any `json:"commands"`
	Sent     []string         `json:"sent"`
}

func TestGetCommandsAndExpansionMatchPi16(t *testing.T) {
	data, err := os.ReadFile("../../testdata/pi16/prompts/record.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []recordedRun
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	run := runs[0]
	if run.Name != "trusted" {
		t.Fatalf("first run is %q", run.Name)
	}
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS("../../testdata/resources")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/.git", "home"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cwd, agent := filepath.Join(work, "proj"), filepath.Join(work, "agent")
	f := newFixture(t, fixtureOptions{cwd: cwd, agentDir: agent, loadResources: func() *resources.Set {
		return resources.Load(resources.Options{AgentDir: agent, Cwd: cwd, Home: filepath.Join(work, "home"),
			ProjectTrusted: true, GlobalPrompts: []string{"../extra-prompts"}, SkillPaths: []string{"../extra-skills/commit-helper"}})
	}})
	c := startClient(t, f.sess, ServeOptions{})

	r := c.call(map[string]any{"type": "get_commands"})
	var got struct {
		Data struct {
			Commands []map[string]any `json:"commands"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	var want []map[string]any
	for _, cmd := range run.Commands {
		if cmd["source"] == "extension" {
			continue // pi's built-in extensions
		}
		info := cmd["sourceInfo"].(map[string]any)
		for k, v := range info {
			if s, ok := v.(string); ok {
				info[k] = strings.ReplaceAll(s, "$WORK", work)
			}
		}
		want = append(want, cmd)
	}
	if !reflect.DeepEqual(got.Data.Commands, want) {
		t.Errorf("get_commands:\n got %v\n pi  %v", got.Data.Commands, want)
	}
	// pi writes the fields in this order.
	if !strings.Contains(r.raw, `{"name":"fix","description":"Fix a failing test (project version)","source":"prompt","sourceInfo":{"path":"`) {
		t.Errorf("field order: %s", r.raw)
	}

	for i, in := range run.Cases[:4] {
		f.srv.Enqueue(openaitest.TextReply("mock-model", "ok"))
		from := c.count()
		c.ok(map[string]any{"type": "prompt", "message": in})
		_, start := c.waitFor(from, func(r record) bool {
			msg, _ := r.obj["message"].(map[string]any)
			return r.str("type") == "message_start" && msg["role"] == "user"
		})
		c.waitEvent(from, "agent_settled")
		content := start.obj["message"].(map[string]any)["content"].([]any)
		text := content[0].(map[string]any)["text"]
		if want := strings.ReplaceAll(run.Sent[i], "$WORK", work); text != want {
			t.Errorf("%q sent %q, pi %q", in, text, want)
		}
	}
}
