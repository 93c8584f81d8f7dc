package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's subagent example starts "the running pi" (process.execPath with process.argv[1]) in --mode json
// and reads its message_end events: in pi-go's sidecar that runs pi-go, whose request reaches the same
// scripted server between the parent's two.
func TestPiSubagentExampleRunsPiGoAsTheSubagent(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"scripted":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[{"id":"test-model"}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	// A user agent (agents.ts reads getAgentDir()/agents): no model, so it inherits the parent's.
	agent := "---\nname: echoer\ndescription: Repeats what it finds\ntools: read, ls\n---\n\nYou are echoer, a careful repeater.\n"
	if err := os.MkdirAll(filepath.Join(p.agentDir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.agentDir, "agents", "echoer.md"), []byte(agent), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write("notes.txt", "the secret is 42\n")
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--model", "scripted/test-model", "-e",
		filepath.Join(pi.pkg, "examples", "extensions", "subagent", "index.ts"))

	p.server.Enqueue(
		// the parent delegates
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "sub", Name: "subagent",
			Arguments: `{"agent":"echoer","task":"find the secret"}`}),
		// the child pi-go reads a file, then answers
		openaitest.ToolCallReply("test-model", "Reading.", openaitest.ToolCallSpec{ID: "rd", Name: "read",
			Arguments: `{"path":"notes.txt"}`}),
		openaitest.TextReply("test-model", "The secret ", "is 42."),
		// the parent's answer after the tool result
		openaitest.TextReply("test-model", "Done."),
	)
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "ask echoer"})
	end := s.expectAll("the subagent's result and agent_settled", func(m map[string]any) bool {
		return m["type"] == "tool_execution_end" && m["toolName"] == "subagent"
	}, isType("agent_settled"))[0]
	raw, _ := json.Marshal(end["result"])
	var res struct {
		Content []struct{ Text string } `json:"content"`
		Details struct {
			Mode    string `json:"mode"`
			IsError bool   `json:"isError"`
			Results []struct {
				Status, Model, StopReason, Stderr string
				ExitCode                          *int
				Usage                             struct{ Input, Output, Turns, ContextTokens int }
				Messages                          []struct {
					Role, ToolName  string
					Provider, Model string
					Content         []struct{ Type, Text string }
				}
			} `json:"results"`
		} `json:"details"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if end["isError"] == true || res.Details.IsError || len(res.Content) != 1 || res.Content[0].Text != "The secret is 42." {
		t.Fatalf("subagent result: %s", raw)
	}
	if len(res.Details.Results) != 1 {
		t.Fatalf("subagent details: %s", raw)
	}
	r := res.Details.Results[0]
	// The child's message_end events: its user message, two answers with the usage the server
	// reported (10 in each), the read's result.
	if r.Status != "completed" || r.ExitCode == nil || *r.ExitCode != 0 || r.Model != "scripted/test-model" || r.StopReason != "stop" ||
		r.Usage.Turns != 2 || r.Usage.Input != 20 || r.Usage.Output == 0 || r.Usage.ContextTokens <= 10 {
		t.Errorf("subagent run: %s", raw)
	}
	var roles []string
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" || r.Messages[2].ToolName != "read" ||
		len(r.Messages[2].Content) != 1 || !strings.Contains(r.Messages[2].Content[0].Text, "the secret is 42") {
		t.Errorf("the child's messages: %s", raw)
	}
	if last := r.Messages[3]; last.Provider != "scripted" || last.Model != "test-model" {
		t.Errorf("the child's answer came from %s/%s", last.Provider, last.Model)
	}

	// The child's request: the agent's system prompt appended, its tools only, the task.
	var child struct {
		Messages []map[string]any `json:"messages"`
		Tools    []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	reqs := p.server.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if err := reqs[1].Decode(&child); err != nil {
		t.Fatal(err)
	}
	if sys := contentText(child.Messages[0]["content"]); !strings.Contains(sys, "You are echoer, a careful repeater.") {
		t.Errorf("the child's system prompt lacks the agent's: %q", sys)
	}
	if task := contentText(child.Messages[len(child.Messages)-1]["content"]); task != "Task: find the secret" {
		t.Errorf("the child's prompt: %q", task)
	}
	var tools []string
	for _, tool := range child.Tools {
		tools = append(tools, tool.Function.Name)
	}
	if strings.Join(tools, ",") != "read,ls" {
		t.Errorf("the child's tools: %v", tools)
	}
	// The parent's model gets the child's answer as the tool's result.
	checkToolResults(t, p.server, 4, map[string]string{"sub": "The secret is 42."})
}
