package tools

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// TestDefinitionsMatchPi compares what the model is told about each built-in tool with what pi 0.73.1
// sent to a scripted server for `--tools read,bash,edit,write,grep,find,ls` (testdata/
// pi-tool-definitions.json, the request's tools[].function without "strict"). The schemas are compared
// byte for byte: the model reads them as text, and pi's TypeBox schemas put "required" before
// "properties".
func TestDefinitionsMatchPi(t *testing.T) {
	data, err := os.ReadFile("testdata/pi-tool-definitions.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
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
