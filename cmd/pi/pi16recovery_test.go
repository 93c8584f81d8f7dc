package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/scripts/interop/fixture"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// pi 1.6.0 recovering from a failed answer (testdata/pi16/recovery, see its README): a 500 retried
// once, a context overflow and an answer cut short below the output limit, each recovered by
// compaction and a new request. The failed attempt stays in the session file
// and leaves the model's context through a context_edit with replacement null, which the JSON stream
// announces as entry_appended, where pi writes it. Events are compared event by event and the session
// entry by entry, times masked, system messages set aside (pi16_transcript_e2e_test.go compares them).
func TestRecoveryOmitsTheFailedAttemptAsPi16(t *testing.T) {
	serverError := scenario.Spec{Status: 500, Error: "The server had an error while processing your request."}
	overflow := scenario.Spec{Status: 400, Error: "This model's maximum context length is 20000 tokens. However, your messages resulted in 25000 tokens."}
	for _, c := range []struct {
		name, settings string
		args           []string
		answers        []scenario.Spec
	}{
		{"retry", `{"retry":{"enabled":true,"maxRetries":1,"baseDelayMs":1}}`, []string{"--model", "mock/mock-model", "--mode", "json", "hi"},
			[]scenario.Spec{serverError, {Text: "Recovered."}}},
		// pi 1.6 also summarises the prefix of the overflowing turn (one more summary request); pi-go
		// keeps the turn (scripts/interop/README.md): the events are the same.
		{"overflow", `{"compaction":{"keepRecentTokens":1}}`, []string{"--model", "mock/mock-small", "--mode", "json", "first", "second"},
			[]scenario.Spec{{Text: "First answer."}, overflow, {Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}},
		// an answer cut short below the model's output limit: recovered as an overflow
		{"length", `{"compaction":{"keepRecentTokens":1}}`, []string{"--model", "mock/mock-model", "--mode", "json", "first", "second"},
			[]scenario.Spec{{Text: "First answer."}, {Text: "Cut short", Finish: "length"}, {Text: "## Goal\nSummary."}, {Text: "Second answer after compaction."}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newPi16Workspace(t)
			w.write("agent/settings.json", c.settings)
			w.script(c.answers...)
			w.run(c.args...)
			stable := fixture.New(w.root, "").Stabilise([]string{w.stdout, w.sessionFile()})
			got := [2][]string{splitLines(stable[0]), splitLines(stable[1])}
			want := [2][]string{splitLines(readPi16(t, "recovery/"+c.name+"/events.jsonl")), splitLines(readPi16(t, "recovery/"+c.name+"/session.jsonl"))}
			checkOmissions(t, got[1])
			for k := range got {
				got[k], want[k] = withoutSystemMessages(t, got[k]), withoutSystemMessages(t, want[k])
				for _, lines := range [][]string{got[k], want[k]} {
					for i := range lines {
						lines[i] = maskRecovery(maskEventTimes(lines[i]), c.name != "retry")
					}
				}
			}
			compareLines(t, "events", withoutMiddleUpdates(got[0]), withoutMiddleUpdates(want[0]))
			compareLines(t, "session", got[1], want[1])
		})
	}
}

var (
	// pi 1.6 writes an HTTP error as the status and the JSON body, pi-go as the status and the
	// body's message (scripts/interop/README.md).
	errorTextRe = regexp.MustCompile(`"(errorMessage|finalError)":"(?:[^"\\]|\\.)*"`)
	// With keepRecentTokens 1 pi 1.6 cuts the overflowing turn and summarises its prefix too, pi-go
	// keeps the turn: the compaction's summary, cut, sizes and usage differ, and pi's extra summary
	// request moves the answer ids.
	compactionResultRe = regexp.MustCompile(`"result":\{.*\},"aborted"`)
	compactionEntryRe  = regexp.MustCompile(`^(\{"type":"compaction","id":"<id>","parentId":"<id>","timestamp":"<iso>"),.*\}$`)
	responseIDRe       = regexp.MustCompile(`"responseId":"chatcmpl-mock\d+"`)
)

func maskRecovery(line string, compaction bool) string {
	line = errorTextRe.ReplaceAllString(line, `"$1":"<error>"`)
	if compaction {
		line = compactionResultRe.ReplaceAllString(line, `"result":"<result>","aborted"`)
		line = compactionEntryRe.ReplaceAllString(line, `$1,"<compaction>"}`)
		line = responseIDRe.ReplaceAllString(line, `"responseId":"<id>"`)
	}
	return line
}

// checkOmissions checks that the session file has context edits and that each omits (replacement
// null) an assistant message of the file that failed or was cut short: the recovery's.
func checkOmissions(t *testing.T, lines []string) {
	t.Helper()
	failed := map[string]bool{}
	edits := 0
	for _, line := range lines {
		var e struct {
			Type, ID, TargetID string
			Replacement        json.RawMessage
			Message            struct{ Role, StopReason string }
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Type == "message" && e.Message.Role == "assistant" && (e.Message.StopReason == "error" || e.Message.StopReason == "length"):
			failed[e.ID] = true
		case e.Type == "context_edit":
			edits++
			if !failed[e.TargetID] || string(e.Replacement) != "null" || !strings.Contains(line, `"replacement":null}`) {
				t.Errorf("context edit %s", line)
			}
		}
	}
	if edits == 0 {
		t.Error("no context edit in the session file")
	}
}

// A session pi 1.6.0 wrote while recovering (its failed attempt omitted by a context_edit) resumes in
// pi-go with the request pi itself sent when it resumed that file: the same messages (the omitted
// attempt left out) and tools, and the same system prompt apart from pi's <docs> section.
func TestPi16RecoverySessionResumesWithPisNextRequest(t *testing.T) {
	for _, name := range []string{"retry", "overflow", "length"} {
		t.Run(name, func(t *testing.T) {
			piReqs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "pi16", "recovery", name, "requests", "*.json"))
			sort.Strings(piReqs)
			resumeLikePi(t, "recovery/"+name+"/session.jsonl", "recovery/"+name+"/requests/"+filepath.Base(piReqs[len(piReqs)-1]))
		})
	}
}

// The hand-written pi 1.6 session of testdata/pi16/session-projection (context edits, usage entries,
// retain-none and nested compactions, a tool set of bash alone) resumes in pi-go with pi's request:
// the edited context, and the tools the transcript declared (pi 1.6 restores them).
func TestPi16ProjectionSessionResumesWithPisNextRequest(t *testing.T) {
	resumeLikePi(t, "session-projection/session.jsonl", "session-projection/resume-request.json")
}

// resumeLikePi resumes a copy of a pi 1.6 session fixture in pi-go (--session <copy> -p next) and
// compares the request it sends with the one pi sent.
func resumeLikePi(t *testing.T, sessionRel, requestRel string) {
	t.Helper()
	w := newPi16Workspace(t)
	file := strings.ReplaceAll(readPi16(t, sessionRel), "/tmp/pi-fixture", w.root)
	w.write("copy/session.jsonl", file)
	w.script(scenario.Spec{Text: "Next answer."})
	w.run("--session", filepath.Join(w.root, "copy", "session.jsonl"), "-p", "next")
	reqs := w.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	ours := fixture.New(w.root, "").Stabilise([]string{reqs[0]})[0]
	pis := readPi16(t, requestRel)
	var o, p struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if err := json.Unmarshal([]byte(ours), &o); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(pis), &p); err != nil {
		t.Fatal(err)
	}
	var oSys, pSys struct{ Content string }
	json.Unmarshal(o.Messages[0], &oSys)
	json.Unmarshal(p.Messages[0], &pSys)
	if want := withoutDocsPrompt(pSys.Content); oSys.Content != want || want == "" {
		t.Errorf("system prompt\n got %q\nwant %q", oSys.Content, want)
	}
	if !sameJSONValue(t, o.Tools, p.Tools) {
		t.Errorf("tools differ:\n got %s\n pi  %s", o.Tools, p.Tools)
	}
	if len(o.Messages) != len(p.Messages) {
		t.Fatalf("%d messages, pi sent %d:\n%s\n%s", len(o.Messages), len(p.Messages), ours, pis)
	}
	for i := 1; i < len(o.Messages); i++ {
		if !sameJSONValue(t, o.Messages[i], p.Messages[i]) {
			t.Errorf("message %d:\n got %s\n pi  %s", i, o.Messages[i], p.Messages[i])
		}
	}
}

func sameJSONValue(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON:\n%s\n%s", a, b)
	}
	return reflect.DeepEqual(x, y)
}
