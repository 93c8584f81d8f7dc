package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// sleepCommand is a `sleep 300` that can be told apart from every other process on the machine.
func sleepCommand() (command, marker string) {
	marker = fmt.Sprintf("300.%09d", rand.IntN(1e9))
	return "sleep " + marker, marker
}

// processesWith lists the live processes whose command line contains marker (zombies have an empty
// command line, so a killed process that is not yet reaped does not count).
func processesWith(marker string) []string {
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		if bytes.Contains(data, []byte(marker)) {
			out = append(out, filepath.Base(filepath.Dir(m))+": "+string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// waitProcesses polls /proc until the processes with marker are there (want) or gone (!want).
func waitProcesses(t *testing.T, marker string, want bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		procs := processesWith(marker)
		if (len(procs) > 0) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %s: %v (want present=%v)", marker, procs, want)
		}
		time.Sleep(5 * time.Millisecond) // polling /proc: there is no event to wait for
	}
}

func needProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
}

func TestBashRunsConcurrentlyWithOtherCommands(t *testing.T) {
	needProc(t)
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	cmd, marker := sleepCommand()

	// Ids interleave: the slow bash is overtaken by the commands sent after it.
	bashID := c.send(map[string]any{"type": "bash", "command": cmd})
	waitProcesses(t, marker, true)
	stateID := c.send(map[string]any{"type": "get_state"})
	abortID := c.send(map[string]any{"type": "abort"})
	c.response(stateID)
	c.response(abortID)
	for _, r := range c.records() {
		if r.isResponse(bashID) {
			t.Fatalf("bash answered before abort_bash: %s", r.raw)
		}
	}
	stopID := c.send(map[string]any{"type": "abort_bash"})
	r := c.response(bashID)
	if r.raw != `{"id":"`+bashID+`","type":"response","command":"bash","success":true,"data":{"output":"","cancelled":true,"truncated":false}}` {
		t.Errorf("cancelled bash: %s", r.raw)
	}
	c.response(stopID)
	waitProcesses(t, marker, false)

	// A finished command reports its output and exit code, and lands in the transcript and the file
	// once a message makes the file exist.
	data := c.ok(map[string]any{"type": "bash", "command": "echo hello; exit 3"}).(map[string]any)
	if data["output"] != "hello\n" || data["exitCode"] != 3.0 || data["cancelled"] != false {
		t.Errorf("bash result: %v", data)
	}
	msgs := c.ok(map[string]any{"type": "get_messages"}).(map[string]any)["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["role"] != "bashExecution" || msgs[1].(map[string]any)["command"] != "echo hello; exit 3" {
		t.Errorf("messages: %v", msgs)
	}
	f.srv.Enqueue(openaitest.TextReply("mock-model", "I saw hello"))
	from := c.count()
	c.ok(map[string]any{"type": "prompt", "message": "what did it print?"})
	c.waitEvent(from, "agent_end")
	if roles := strings.Join(requestRoles(t, f.srv.Requests()[0]), " | "); !strings.Contains(roles, "hello") {
		t.Errorf("bash output did not reach the model: %s", roles)
	}
	var roles []string
	for _, m := range fileMessages(t, f.sess.Store().SessionFile()) {
		roles = append(roles, m["role"].(string))
	}
	// The prompt's system message comes after the commands run before it (pi 1.6).
	if strings.Join(roles, " ") != "bashExecution bashExecution system user assistant" {
		t.Errorf("session file roles: %v", roles)
	}
}

func TestAbortKillsTheBashToolOfARun(t *testing.T) {
	needProc(t)
	f := newFixture(t, fixtureOptions{})
	cmd, marker := sleepCommand()
	args, _ := json.Marshal(map[string]string{"command": cmd})
	f.srv.Enqueue(openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "call_1", Name: "bash", Arguments: string(args)}))
	c := startClient(t, f.sess, ServeOptions{})

	c.ok(map[string]any{"type": "prompt", "message": "sleep"})
	c.waitEvent(0, "tool_execution_start")
	waitProcesses(t, marker, true)
	from := c.count()
	c.ok(map[string]any{"type": "abort"})
	waitProcesses(t, marker, false)
	_, end := c.waitEvent(from, "tool_execution_end")
	if end.obj["isError"] != true {
		t.Errorf("aborted tool: %s", end.raw)
	}
	if st := c.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isStreaming"] != false {
		t.Errorf("still streaming after abort: %v", st)
	}
}

func TestEndOfInputAbortsTheRunAndTheBashCommand(t *testing.T) {
	needProc(t)
	f := newFixture(t, fixtureOptions{})
	resp, gate := slowText("partial", " never sent")
	f.srv.Enqueue(resp)
	c := startClient(t, f.sess, ServeOptions{})
	cmd, marker := sleepCommand()

	c.ok(map[string]any{"type": "prompt", "message": "go"})
	release(t, gate, 2)
	c.waitFor(0, func(r record) bool { return strings.Contains(r.raw, `"delta":"partial"`) })
	bashID := c.send(map[string]any{"type": "bash", "command": cmd})
	waitProcesses(t, marker, true)

	if err := c.closeInput(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if procs := processesWith(marker); len(procs) > 0 {
		t.Errorf("still running after Serve returned: %v", procs)
	}
	<-c.outEOF
	if r := c.response(bashID); !strings.Contains(r.raw, `"cancelled":true`) {
		t.Errorf("bash: %s", r.raw)
	}
	if _, end := c.waitEvent(0, "agent_end"); !strings.Contains(end.raw, `"stopReason":"aborted"`) {
		t.Errorf("agent_end: %s", end.raw)
	}
	if f.sess.IsStreaming() {
		t.Error("the session is still streaming")
	}
	// The session file was flushed with the aborted answer in it, and the cancelled command after it
	// (pi records cancelled commands too).
	msgs := fileMessages(t, f.sess.Store().SessionFile())
	if len(msgs) != 4 || msgs[0]["role"] != "system" || msgs[2]["stopReason"] != "aborted" || msgs[3]["role"] != "bashExecution" || msgs[3]["cancelled"] != true {
		t.Errorf("session file: %v", msgs)
	}
}

// abort_bash right behind bash (no wait between them) stops it: the bash command's cancellation is
// registered before the next command is read, as in pi, where the command has started by then.
func TestAbortBashRightAfterBash(t *testing.T) {
	needProc(t)
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{})
	cmd, marker := sleepCommand()
	bashID := c.send(map[string]any{"type": "bash", "command": "echo started; " + cmd + "; echo never"})
	stopID := c.send(map[string]any{"type": "abort_bash"})
	c.response(stopID)
	r := c.response(bashID)
	if !strings.Contains(r.raw, `"cancelled":true`) || strings.Contains(r.raw, "never") {
		t.Errorf("bash after abort_bash: %s", r.raw)
	}
	waitProcesses(t, marker, false)
}
