package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/scripts/interop/fixture"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// Times are compared masked: pi-go and pi take different numbers of milliseconds, so the stabilised
// instants (numbered in order of appearance) need not line up.
var (
	isoTimeRe = regexp.MustCompile(`"timestamp":"[^"]*"`)
	msTimeRe  = regexp.MustCompile(`"timestamp":\d+`)
)

func maskTimes(s string) string {
	return msTimeRe.ReplaceAllString(isoTimeRe.ReplaceAllString(s, `"timestamp":"T"`), `"timestamp":0`)
}

// withoutDocsSection rewrites pi's system message entry as pi-go writes it: no <docs> section (pi-go
// has no installed docs to point at). Everything else, the tool declarations included, is pi's.
func withoutDocsSection(t *testing.T, piLine, goLine string) string {
	t.Helper()
	var pi, ours struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal([]byte(piLine), &pi) != nil || json.Unmarshal([]byte(goLine), &ours) != nil {
		t.Fatalf("not entries:\n%s\n%s", piLine, goLine)
	}
	pm, err := provider.UnmarshalMessage(pi.Message)
	if err != nil {
		t.Fatal(err)
	}
	om, err := provider.UnmarshalMessage(ours.Message)
	if err != nil {
		t.Fatal(err)
	}
	ps, gs := pm.(*provider.SystemMessage), om.(*provider.SystemMessage)
	var names, ourNames []string
	for _, d := range ps.ToolsAdded {
		names = append(names, d.Name)
	}
	for _, d := range gs.ToolsAdded {
		ourNames = append(ourNames, d.Name)
	}
	if strings.Join(names, ",") != strings.Join(ourNames, ",") {
		t.Errorf("declared tools %v, pi declared %v", ourNames, names)
	}
	cp := *ps
	cp.Sections = nil
	for _, s := range ps.Sections {
		if s.Name != "docs" {
			cp.Sections = append(cp.Sections, s)
		}
	}
	data, err := cp.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(piLine, string(pi.Message), string(data), 1)
}

// docsPrompt removes pi's <docs> section from a request's system prompt.
func withoutDocsPrompt(prompt string) string {
	start := strings.Index(prompt, "\n\n<docs>\n")
	end := strings.Index(prompt, "\n</docs>")
	if start < 0 || end < 0 {
		return prompt
	}
	return prompt[:start] + prompt[end+len("\n</docs>"):]
}

type requestBody struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func parseRequest(t *testing.T, body string) requestBody {
	t.Helper()
	var r requestBody
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// compareRequests checks that pi-go's requests send pi's system prompt (docs aside), the same roles
// and the same tools, in the same order.
func compareRequests(t *testing.T, ours, pis []string) {
	t.Helper()
	if len(ours) != len(pis) {
		t.Fatalf("%d requests, pi made %d", len(ours), len(pis))
	}
	for i := range pis {
		o, p := parseRequest(t, ours[i]), parseRequest(t, pis[i])
		var oPrompt, pPrompt string
		if json.Unmarshal(o.Messages[0].Content, &oPrompt) != nil || json.Unmarshal(p.Messages[0].Content, &pPrompt) != nil {
			t.Fatalf("request %d: no system prompt", i+1)
		}
		if want := withoutDocsPrompt(pPrompt); oPrompt != want {
			t.Errorf("request %d system prompt\n got %q\nwant %q", i+1, oPrompt, want)
		}
		roles := func(r requestBody) string {
			var out []string
			for _, m := range r.Messages {
				out = append(out, m.Role)
			}
			return strings.Join(out, " ")
		}
		tools := func(r requestBody) string {
			var out []string
			for _, tl := range r.Tools {
				out = append(out, tl.Function.Name)
			}
			return strings.Join(out, " ")
		}
		if roles(o) != roles(p) || tools(o) != tools(p) {
			t.Errorf("request %d: roles %q tools %q, pi: %q %q", i+1, roles(o), tools(o), roles(p), tools(p))
		}
	}
}

// entryShape is a session line's type, role and parent, by position.
func entryShapes(t *testing.T, file string) []string {
	t.Helper()
	index := map[string]int{}
	var out []string
	for i, line := range strings.Split(strings.TrimSpace(file), "\n") {
		var e struct {
			Type     string  `json:"type"`
			ID       string  `json:"id"`
			ParentID *string `json:"parentId"`
			Message  struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		index[e.ID] = i
		parent := "-"
		if e.ParentID != nil {
			parent = fmt.Sprint(index[*e.ParentID])
		}
		out = append(out, fmt.Sprintf("%d %s/%s parent %s", i, e.Type, e.Message.Role, parent))
	}
	return out
}

// eventKinds is the type (and message role) of each event up to the first assistant message.
func leadingEvents(t *testing.T, stdout string) (kinds []string, system string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		var head struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(ev.Message, &head)
		if head.Role == "assistant" {
			break
		}
		kinds = append(kinds, strings.TrimSuffix(ev.Type+"/"+head.Role, "/"))
		if head.Role == "system" && ev.Type == "message_end" {
			system = string(ev.Message)
		}
	}
	return kinds, system
}

// The first request of a new session, against pi 1.6.0's recording of the same project: the system
// prompt byte for byte (pi's <docs> aside), the system message entry in the session file (key order,
// tool declarations, place in the parentId chain; times masked), and the system message's events.
func TestFirstRequestDeclaresAsPi16(t *testing.T) {
	for _, c := range []struct {
		dir   string
		args  []string
		setup func(*pi16Workspace)
	}{
		{"all-tools", []string{"--tools", "read,bash,edit,write,grep,find,ls"}, nil},
		{"agents-md", nil, func(w *pi16Workspace) { w.write("proj/AGENTS.md", "Use tabs.\n") }},
	} {
		t.Run(c.dir, func(t *testing.T) {
			w := newPi16Workspace(t)
			if c.setup != nil {
				c.setup(w)
			}
			w.script(scenario.Spec{Text: "Hello."})
			stdout := w.run(append(append([]string{"--mode", "json", "--model", "mock/mock-model"}, c.args...), "hi")...)
			got := fixture.New(w.root, "").Stabilise([]string{stdout, w.requests()[0], w.sessionFile()})
			dir := "first-request/" + c.dir + "/"
			want := []string{readPi16(t, dir+"events.jsonl"), readPi16(t, dir+"request.json"), readPi16(t, dir+"session.jsonl")}

			compareRequests(t, []string{got[1]}, []string{want[1]})

			gotShapes, wantShapes := entryShapes(t, got[2]), entryShapes(t, want[2])
			if strings.Join(gotShapes, "\n") != strings.Join(wantShapes, "\n") {
				t.Errorf("session entries\n got %v\nwant %v", gotShapes, wantShapes)
			}
			gotLines, wantLines := strings.Split(got[2], "\n"), strings.Split(want[2], "\n")
			// header, model_change, thinking_level_change, system message, user message
			for i := 0; i < 5; i++ {
				wl := wantLines[i]
				if i == 3 {
					wl = withoutDocsSection(t, wl, gotLines[i])
				}
				if maskTimes(gotLines[i]) != maskTimes(wl) {
					t.Errorf("session line %d\n got %s\nwant %s", i+1, gotLines[i], wl)
				}
			}

			gotKinds, gotSystem := leadingEvents(t, got[0])
			wantKinds, _ := leadingEvents(t, want[0])
			if strings.Join(gotKinds, " ") != strings.Join(wantKinds, " ") {
				t.Errorf("events\n got %v\nwant %v", gotKinds, wantKinds)
			}
			var entry struct {
				Message json.RawMessage `json:"message"`
			}
			_ = json.Unmarshal([]byte(gotLines[3]), &entry)
			if gotSystem != string(entry.Message) {
				t.Errorf("the event's system message is not the one in the file:\n%s\n%s", gotSystem, entry.Message)
			}
		})
	}
}

// pi 1.6.0's four-request tool run: one system message, at the head of the session, and every request
// sends the same prompt and tools as pi's.
func TestToolRunDeclaresOnceAsPi16(t *testing.T) {
	w := newPi16Workspace(t)
	// pi-go's checkpoint entries (a deliberate extension) are not in pi's recording.
	w.write("agent/settings.json", `{"checkpoints": false}`)
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	w.script(
		scenario.Spec{Text: "Let me look around.", ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"ls -la"}`)}}},
		scenario.Spec{ToolCalls: []scenario.ToolCall{{Name: "read", Arguments: args(`{"path":"README.md"}`)}}},
		scenario.Spec{ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"wc -l notes.txt src/main.go"}`)}}},
		scenario.Spec{Text: "A tiny demo project: a README, notes and a Go main.", Pieces: 4},
	)
	stdout := w.run("--mode", "json", "--model", "mock/mock-model", "summarise this project")
	texts := append([]string{stdout}, w.requests()...)
	texts = append(texts, w.sessionFile())
	got := fixture.New(w.root, "").Stabilise(texts)
	var want []string
	want = append(want, readPi16(t, "json-tool-run/events.jsonl"))
	for i := 1; i <= 4; i++ {
		want = append(want, readPi16(t, fmt.Sprintf("json-tool-run/requests/%03d.json", i)))
	}
	want = append(want, readPi16(t, "json-tool-run/session.jsonl"))
	if len(got) != len(want) {
		t.Fatalf("%d requests, pi made 4", len(got)-2)
	}
	compareRequests(t, got[1:5], want[1:5])
	gotShapes, wantShapes := entryShapes(t, got[5]), entryShapes(t, want[5])
	if strings.Join(gotShapes, "\n") != strings.Join(wantShapes, "\n") {
		t.Errorf("session entries\n got %v\nwant %v", gotShapes, wantShapes)
	}
	// agent_end lists the system message first, as pi's does.
	lines := strings.Split(strings.TrimSpace(got[0]), "\n")
	var end struct {
		Type     string `json:"type"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	for _, l := range lines {
		if strings.Contains(l, `"type":"agent_end"`) {
			_ = json.Unmarshal([]byte(l), &end)
		}
	}
	if len(end.Messages) != 9 || end.Messages[0].Role != "system" {
		t.Errorf("agent_end messages %+v", end.Messages)
	}
}
