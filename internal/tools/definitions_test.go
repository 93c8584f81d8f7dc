package tools

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// TestDefinitionsMatchPi compares what the model is told about each built-in tool with what pi 1.6.0
// sent to its scripted server for `--tools read,bash,edit,write,grep,find,ls` (the request's
// tools[].function in testdata/pi16/first-request/all-tools; pi 1.6 sends no "strict" to a server
// whose compat does not declare strict mode). The schemas are compared byte for byte: the model reads
// them as text, and pi's TypeBox schemas put "required" before "properties".
func TestDefinitionsMatchPi(t *testing.T) {
	data, err := os.ReadFile("../../testdata/pi16/first-request/all-tools/request.json")
	if err != nil {
		t.Fatal(err)
	}
	var request struct {
		Tools []struct {
			Function json.RawMessage `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &request); err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	for _, tool := range request.Tools {
		var fn struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(tool.Function, &fn); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(tool.Function), `"strict"`) {
			t.Fatalf("%s: pi sent strict", fn.Name)
		}
		want = append(want, fn)
	}
	cwd := t.TempDir()
	got := []loop.Tool{
		NewRead(cwd, ReadOptions{}), NewBash(cwd, shell.Options{}), NewEdit(cwd, EditOptions{}),
		NewWrite(cwd, WriteOptions{}), NewGrep(cwd), NewFind(cwd), NewLs(cwd),
	}
	if len(got) != len(want) {
		t.Fatalf("%d tools, pi has %d", len(got), len(want))
	}
	for i, tool := range got {
		def := tool.Definition()
		w := want[i]
		if def.Name != w.Name {
			t.Errorf("tool %d: name %q, pi %q", i, def.Name, w.Name)
			continue
		}
		if def.Description != w.Description {
			t.Errorf("%s: description\n got %q\nwant %q", w.Name, def.Description, w.Description)
		}
		if string(def.Parameters) != string(w.Parameters) {
			t.Errorf("%s: parameters\n got %s\nwant %s", w.Name, def.Parameters, w.Parameters)
		}
	}
}

// TestDeclarationsMatchPi compares the tools' declarations, as the system message that first declares
// them persists them (name, description, parameters, constrainedSampling), with the toolsAdded of pi
// 1.6.0's own first system message for the same seven tools, byte for byte.
func TestDeclarationsMatchPi(t *testing.T) {
	data, err := os.ReadFile("../../testdata/pi16/first-request/all-tools/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Message struct {
				Role       string          `json:"role"`
				ToolsAdded json.RawMessage `json:"toolsAdded"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Message.Role == "system" {
			want = string(e.Message.ToolsAdded)
			break
		}
	}
	if want == "" {
		t.Fatal("no system message in pi's session")
	}
	cwd := t.TempDir()
	var defs []provider.ToolDefinition
	for _, tool := range []loop.Tool{
		NewRead(cwd, ReadOptions{}), NewBash(cwd, shell.Options{}), NewEdit(cwd, EditOptions{}),
		NewWrite(cwd, WriteOptions{}), NewGrep(cwd), NewFind(cwd), NewLs(cwd),
	} {
		defs = append(defs, tool.Definition())
	}
	got, err := provider.ToolDeclarationsJSON(defs)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("declarations\n got %s\nwant %s", got, want)
	}
}
