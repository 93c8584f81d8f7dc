package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

func hold(n int) *int { return &n }

// compactSmall is the settings.json member that lets pi 1.6 compact the scenarios' short sessions.
const compactSmall = `"compaction":{"keepRecentTokens":1}`

// rpcRun is one program's run of the RPC scenario.
type rpcRun struct {
	w *workspace
	// log is the whole transcript, commands and output in the order seen.
	log []record
	// sessionFile is the session of the scenario's first part (before fork, switch and new_session);
	// forkFile the session the fork created.
	sessionFile, forkFile, newFile string
	code                           int
	stderr                         string
}

// rpcScenario drives one program through the command sequence. Both programs get the same commands
// at the same logical points (after the same awaited event), so their transcripts line up.
func (c *checker) rpcScenario(w *workspace, extra ...string) (*rpcRun, error) {
	if c.ver.newerChecks {
		// pi >= 0.87 keeps the newest keepRecentTokens unsummarised and refuses to compact a session
		// that is all "recent": the scenario's few messages need a small budget to compact at all.
		if err := os.WriteFile(filepath.Join(w.agent, "settings.json"), []byte(`{`+compactSmall+`}`), 0o644); err != nil {
			return nil, err
		}
	}
	w.script(
		// prompt: held after the first text delta; a steer arrives while it streams.
		scenario.Spec{Text: "Let me look around.", ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"ls"}`)}}, HoldAfter: hold(2)},
		scenario.Spec{Text: "Counted the lines too.", Pieces: 2},
		// second prompt: a follow-up arrives while it streams.
		scenario.Spec{Text: "More about the project.", Pieces: 3, HoldAfter: hold(2)},
		scenario.Spec{Text: "The notes are short."},
		// third prompt: aborted while it streams (never released).
		scenario.Spec{Text: "A very long essay that never ends", Pieces: -1, HoldAfter: hold(3)},
		// after set_model + cycle_thinking_level: a reasoning answer.
		scenario.Spec{Reasoning: "Considering.", Text: "Thought about it.", Pieces: 2},
		// compact: the summary.
		scenario.Spec{Text: "## Goal\nSummarise the demo project.\n\n## Progress\nLooked at the files."},
		// after compaction.
		scenario.Spec{Text: "Still here after compaction."},
		// after fork: the re-submitted prompt.
		scenario.Spec{Text: "Answer on the fork."},
		// after new_session.
		scenario.Spec{Text: "Fresh start."},
	)
	p, err := w.startRPC(extra...)
	if err != nil {
		return nil, err
	}
	run := &rpcRun{w: w}
	save := p.save
	step := func(err error) error {
		if err != nil {
			p.stdin.Close()
			p.cmd.Process.Kill()
			p.cmd.Wait()
			save()
		}
		return err
	}
	call := func(cmd map[string]any) (*Obj, error) { return p.call(cmd) }
	ok := func(cmd map[string]any) error { _, err := call(cmd); return err }

	st, err := call(map[string]any{"type": "get_state"})
	if err != nil {
		return nil, step(err)
	}
	if d, _ := st.Get("data").(*Obj); d != nil {
		run.sessionFile = d.Str("sessionFile")
	}

	// 1. prompt, steer while streaming, release, run to the end.
	p.send(map[string]any{"type": "prompt", "message": "summarise this project"})
	if _, err := p.event("message_update"); err != nil {
		return nil, step(err)
	}
	if err := ok(map[string]any{"type": "steer", "message": "also count the lines"}); err != nil {
		return nil, step(err)
	}
	w.release()
	if err := p.idle(); err != nil {
		return nil, step(err)
	}

	// 2. prompt, follow_up while streaming.
	p.send(map[string]any{"type": "prompt", "message": "tell me more"})
	if _, err := p.event("message_update"); err != nil {
		return nil, step(err)
	}
	if err := ok(map[string]any{"type": "follow_up", "message": "and the notes?"}); err != nil {
		return nil, step(err)
	}
	w.release()
	if err := p.idle(); err != nil {
		return nil, step(err)
	}

	// 3. prompt, abort while streaming; the response and the end of the run (agent_end, or
	// agent_settled where the program sends it) may come in either order.
	p.send(map[string]any{"type": "prompt", "message": "write a long essay"})
	if _, err := p.event("message_update"); err != nil {
		return nil, step(err)
	}
	abortID := p.send(map[string]any{"type": "abort"})
	gotResp, gotEnd := false, false
	if _, err := p.until("abort response and "+p.idleType(), func(o *Obj) bool {
		if o.Str("type") == "response" && o.Str("id") == abortID {
			gotResp = true
		}
		if o.Str("type") == p.idleType() {
			gotEnd = true
		}
		return gotResp && gotEnd
	}); err != nil {
		return nil, step(err)
	}
	w.release() // the held answer's handler ends with the client's connection anyway

	for _, cmd := range []map[string]any{
		{"type": "get_messages"},
		{"type": "get_session_stats"},
		{"type": "get_last_assistant_text"},
		{"type": "set_model", "provider": "mock", "modelId": "no-such-model"},
		{"type": "set_model", "provider": "mock", "modelId": "mock-reasoner"},
		{"type": "cycle_thinking_level"},
		{"type": "set_thinking_level", "level": "high"},
		{"type": "set_session_name", "name": "   "},
		{"type": "set_session_name", "name": "  interop run  "},
		{"type": "get_state"},
	} {
		if err := ok(cmd); err != nil {
			return nil, step(err)
		}
	}

	// 4. a prompt on the reasoning model.
	if err := ok(map[string]any{"type": "prompt", "message": "now think"}); err != nil {
		return nil, step(err)
	}
	if err := p.idle(); err != nil {
		return nil, step(err)
	}

	// 5. bash, compact, a prompt after compaction.
	for _, cmd := range []map[string]any{
		{"type": "bash", "command": "echo hello from bash; echo to stderr >&2; exit 3"},
		{"type": "compact"},
		{"type": "get_session_stats"},
		{"type": "prompt", "message": "after compaction"},
	} {
		if err := ok(cmd); err != nil {
			return nil, step(err)
		}
	}
	if err := p.idle(); err != nil {
		return nil, step(err)
	}
	for _, cmd := range []map[string]any{
		{"type": "get_messages"},
		{"type": "get_state"},
	} {
		if err := ok(cmd); err != nil {
			return nil, step(err)
		}
	}

	// 6. fork at the user message "after compaction", re-submit it on the fork.
	fm, err := call(map[string]any{"type": "get_fork_messages"})
	if err != nil {
		return nil, step(err)
	}
	forkID := ""
	if d, _ := fm.Get("data").(*Obj); d != nil {
		msgs, _ := d.Get("messages").([]any)
		for _, m := range msgs {
			if mo, _ := m.(*Obj); mo != nil && mo.Str("text") == "after compaction" {
				forkID = mo.Str("entryId")
			}
		}
	}
	if err := ok(map[string]any{"type": "fork", "entryId": "nope0000"}); err != nil {
		return nil, step(err)
	}
	if err := ok(map[string]any{"type": "fork", "entryId": forkID}); err != nil {
		return nil, step(err)
	}
	st, err = call(map[string]any{"type": "get_state"})
	if err != nil {
		return nil, step(err)
	}
	if d, _ := st.Get("data").(*Obj); d != nil {
		run.forkFile = d.Str("sessionFile")
	}
	if err := ok(map[string]any{"type": "get_messages"}); err != nil {
		return nil, step(err)
	}
	if err := ok(map[string]any{"type": "prompt", "message": "after compaction"}); err != nil {
		return nil, step(err)
	}
	if err := p.idle(); err != nil {
		return nil, step(err)
	}

	// 7. back to the first session, then a new one.
	for _, cmd := range []map[string]any{
		{"type": "switch_session", "sessionPath": run.sessionFile},
		{"type": "get_state"},
		{"type": "get_messages"},
		{"type": "get_fork_messages"},
		{"type": "new_session"},
		{"type": "get_state"},
		{"type": "get_messages"},
		{"type": "prompt", "message": "fresh start"},
	} {
		if err := ok(cmd); err != nil {
			return nil, step(err)
		}
	}
	if err := p.idle(); err != nil {
		return nil, step(err)
	}
	st, err = call(map[string]any{"type": "get_state"})
	if err != nil {
		return nil, step(err)
	}
	if d, _ := st.Get("data").(*Obj); d != nil {
		run.newFile = d.Str("sessionFile")
	}
	// pi answers an unknown command without its id.
	p.send(map[string]any{"type": "no_such_command"})
	if _, err := p.until("unknown command", func(o *Obj) bool { return o.Str("command") == "no_such_command" }); err != nil {
		return nil, step(err)
	}
	p.sendRaw("this is not json")
	if _, err := p.until("parse error", func(o *Obj) bool { return o.Str("command") == "parse" }); err != nil {
		return nil, step(err)
	}
	code, err := p.finish()
	run.code, run.log, run.stderr = code, p.log, p.stderr.String()
	save()
	return run, err
}

// rpcRuns runs the RPC scenario (started with --model) in both programs once per checker (the
// session check reuses them).
func (c *checker) rpcRuns() (*rpcRun, *rpcRun, error) {
	if c.rpcPi != nil {
		return c.rpcPi, c.rpcGo, nil
	}
	ra, rb, err := c.rpcPair("rpc", "--model", "mock/mock-model")
	if err != nil {
		return nil, nil, err
	}
	c.rpcPi, c.rpcGo = ra, rb
	return ra, rb, nil
}

func (c *checker) rpcPair(name string, extra ...string) (*rpcRun, *rpcRun, error) {
	wa, wb, err := c.pair(name)
	if err != nil {
		return nil, nil, err
	}
	ra, err := c.rpcScenario(wa, extra...)
	if err != nil {
		return nil, nil, fmt.Errorf("pi: %w", err)
	}
	rb, err := c.rpcScenario(wb, extra...)
	if err != nil {
		return nil, nil, fmt.Errorf("pi-go: %w", err)
	}
	return ra, rb, nil
}

// checkRPC compares the two RPC transcripts, the requests and the session files they wrote: once
// started with --model (which pi applies again to every new, switched and forked session), once
// without (the model comes from the session or the settings).
func checkRPC(c *checker) error {
	ra, rb, err := c.rpcRuns()
	if err != nil {
		return err
	}
	c.compareRPCRuns("rpc --model", ra, rb)
	ra, rb, err = c.rpcPair("rpc-nomodel")
	if err != nil {
		return err
	}
	c.compareRPCRuns("rpc", ra, rb)
	return nil
}

func (c *checker) compareRPCRuns(what string, ra, rb *rpcRun) {
	c.compareEvents(what+": output", outputOf(ra), outputOf(rb), c.norm(ra.w.root), c.norm(rb.w.root))
	if ra.code != rb.code || strings.TrimSpace(ra.stderr) != strings.TrimSpace(rb.stderr) {
		c.rep.diffs(what+": exit", []string{fmt.Sprintf("pi exit %d stderr %q; pi-go exit %d stderr %q", ra.code, ra.stderr, rb.code, rb.stderr)})
	}
	c.compareRequests(what+": requests", ra.w.requests(), rb.w.requests(), ra.w, rb.w)
	c.compareSessionFiles(what+": session file", ra.sessionFile, rb.sessionFile, ra.w, rb.w)
	c.compareSessionFiles(what+": fork session file", ra.forkFile, rb.forkFile, ra.w, rb.w)
	c.compareSessionFiles(what+": new_session file", ra.newFile, rb.newFile, ra.w, rb.w)
	c.compareSettings(what+": settings.json", ra.w, rb.w)
}
