package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/scripts/interop/fixture"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

var (
	// Times are masked (msTimeRe, isoTimeRe of pi16_transcript_e2e_test.go): pi's own re-recordings
	// differ in the order of times within one millisecond.
	// The usage of a message_update is the streaming message's usage when pi dispatched the event,
	// zero or final depending on timing: only its presence is compared.
	updateUsageRe = regexp.MustCompile(`^\{"type":"message_update","usage":\{.*?\}\},"assistantMessageEvent"`)
	entryIDRe     = regexp.MustCompile(`"(id|parentId)":"[0-9a-f]{8}"`)
)

func maskEventTimes(line string) string {
	line = isoTimeRe.ReplaceAllString(line, `"timestamp":"<iso>"`)
	line = msTimeRe.ReplaceAllString(line, `"timestamp":"<ms>"`)
	return updateUsageRe.ReplaceAllString(line, `{"type":"message_update","usage":"<usage>","assistantMessageEvent"`)
}

// withoutSystemMessages drops role:"system" messages (the system prompt and tool declarations pi 1.6
// keeps in the transcript) from events and session entries: pi16_transcript_e2e_test.go compares them,
// with pi's <docs> section set aside. Entry ids are masked, as the dropped entries shift them.
func withoutSystemMessages(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, line := range lines {
		var rec struct {
			Type     string            `json:"type"`
			Message  json.RawMessage   `json:"message"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if bytes.HasPrefix(rec.Message, []byte(`{"role":"system"`)) {
			continue
		}
		for _, m := range rec.Messages {
			if bytes.HasPrefix(m, []byte(`{"role":"system"`)) {
				line = strings.Replace(line, string(m)+",", "", 1)
			}
		}
		out = append(out, entryIDRe.ReplaceAllString(line, `"$1":"<id>"`))
	}
	return out
}

// compareLines reports every line of got that differs from want, event by event.
func compareLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	bad := 0
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g == w {
			continue
		}
		if bad++; bad > 5 {
			t.Errorf("%s: more lines differ", what)
			return
		}
		t.Errorf("%s: line %d differs:\n pi-go: %s\n pi:    %s", what, i+1, g, w)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d lines, pi wrote %d", what, len(got), len(want))
	}
}

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// withoutMiddleUpdates keeps the first and the last of consecutive tool_execution_update events: how
// often a running command's output is reported depends on how it arrives (bash throttles to one
// update per 100 ms).
func withoutMiddleUpdates(lines []string) []string {
	isUpdate := func(i int) bool {
		return i >= 0 && i < len(lines) && strings.HasPrefix(lines[i], `{"type":"tool_execution_update"`)
	}
	var out []string
	for i, l := range lines {
		if isUpdate(i) && isUpdate(i-1) && isUpdate(i+1) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestJSONToolRunMatchesPi16 runs the tool run of testdata/pi16/json-tool-run (bash, read, bash, a
// text answer) in --mode json and compares pi-go's stdout with pi 1.6.0's, event by event and byte
// for byte (times masked), and its session file entry by entry.
func TestJSONToolRunMatchesPi16(t *testing.T) {
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
	w.run("--mode", "json", "--model", "mock/mock-model", "summarise this project")
	stable := fixture.New(w.root, "").Stabilise([]string{w.stdout, w.sessionFile()})
	gotEvents, gotSession := splitLines(stable[0]), splitLines(stable[1])

	wantEventsText, wantSessionText := readPi16(t, "json-tool-run/events.jsonl"), readPi16(t, "json-tool-run/session.jsonl")
	// `ls -la` shows the owner, group and sizes of the machine that recorded: use this machine's.
	lsCmd := exec.Command("ls", "-la")
	lsCmd.Dir = w.proj
	ls, err := lsCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	recorded := "total 20\ndrwxr-xr-x 3 root root 4096 Jan  2  2026 .\ndrwxr-xr-x 5 root root 4096 Jan  2  2026 ..\n" +
		"-rw-r--r-- 1 root root   59 Jan  2  2026 README.md\n-rw-r--r-- 1 root root   22 Jan  2  2026 notes.txt\n" +
		"drwxr-xr-x 2 root root 4096 Jan  2  2026 src\n"
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	for _, text := range []*string{&wantEventsText, &wantSessionText} {
		if !strings.Contains(*text, esc(recorded)) {
			t.Fatal("the fixture's ls -la output is not where the test expects it")
		}
		*text = strings.ReplaceAll(*text, esc(recorded), esc(string(ls)))
	}
	wantEvents, wantSession := splitLines(wantEventsText), splitLines(wantSessionText)

	// System messages are compared in pi16_transcript_e2e_test.go (pi-go has no <docs> section).
	wantEvents, gotEvents = withoutSystemMessages(t, wantEvents), withoutSystemMessages(t, gotEvents)
	wantSession, gotSession = withoutSystemMessages(t, wantSession), withoutSystemMessages(t, gotSession)
	for i := range gotEvents {
		gotEvents[i] = maskEventTimes(gotEvents[i])
	}
	for i := range wantEvents {
		wantEvents[i] = maskEventTimes(wantEvents[i])
	}
	for i := range gotSession {
		gotSession[i] = maskEventTimes(gotSession[i])
	}
	for i := range wantSession {
		wantSession[i] = maskEventTimes(wantSession[i])
	}
	compareLines(t, "events", withoutMiddleUpdates(gotEvents), withoutMiddleUpdates(wantEvents))
	compareLines(t, "session", gotSession, wantSession)
}
