package main

import (
	"os"
	"path/filepath"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// rpcNewScenario covers what RPC gained after 0.73.1 (pi 1.6): get_available_thinking_levels, bash
// with excludeFromContext (and whether its output reaches the next request), get_entries (all, since
// an entry, since an unknown id), get_tree, an abort during a manual compaction, and clear_queue
// while a steer and a follow-up wait. Automatic retry is off, so a program that keeps the queued
// messages gets quick error answers for them (the script has none) instead of a stalled scenario.
func (c *checker) rpcNewScenario(w *workspace) (*rpcRun, error) {
	if err := os.WriteFile(filepath.Join(w.agent, "settings.json"), []byte(`{"retry":{"enabled":false},`+compactSmall+`}`), 0o644); err != nil {
		return nil, err
	}
	w.script(
		scenario.Spec{Text: "After the bash commands."},
		// The compaction's summary: held until the driver let it go after the abort.
		scenario.Spec{Text: "## Goal\nSummary released after the abort.", HoldAfter: hold(1)},
		scenario.Spec{Text: "After the abort."},
		scenario.Spec{Text: "Working on it.", Pieces: 3, HoldAfter: hold(2)},
	)
	p, err := w.startRPC("--model", "mock/mock-model")
	if err != nil {
		return nil, err
	}
	run := &rpcRun{w: w}
	fail := func(err error) (*rpcRun, error) {
		p.stdin.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
		run.log = p.log
		p.save()
		return run, err
	}
	calls := func(cmds ...map[string]any) error {
		for _, cmd := range cmds {
			if _, err := p.call(cmd); err != nil {
				return err
			}
		}
		return nil
	}
	st, err := p.call(map[string]any{"type": "get_state"})
	if err != nil {
		return fail(err)
	}
	if d, _ := st.Get("data").(*Obj); d != nil {
		run.sessionFile = d.Str("sessionFile")
	}
	// Thinking levels of two models; bash kept out of the context and bash kept in it.
	if err := calls(
		map[string]any{"type": "get_available_thinking_levels"},
		map[string]any{"type": "set_model", "provider": "mock", "modelId": "mock-reasoner"},
		map[string]any{"type": "get_available_thinking_levels"},
		map[string]any{"type": "set_thinking_level", "level": "max"},
		map[string]any{"type": "get_state"},
		map[string]any{"type": "set_model", "provider": "mock", "modelId": "mock-model"},
		map[string]any{"type": "bash", "command": "echo excluded output", "excludeFromContext": true},
		map[string]any{"type": "bash", "command": "echo included output"},
		map[string]any{"type": "prompt", "message": "after the bash commands"},
	); err != nil {
		return fail(err)
	}
	if err := p.idle(); err != nil {
		return fail(err)
	}
	ents, err := p.call(map[string]any{"type": "get_entries"})
	if err != nil {
		return fail(err)
	}
	since := "nope0000"
	if d, _ := ents.Get("data").(*Obj); d != nil {
		if list, _ := d.Get("entries").([]any); len(list) > 2 {
			if e, ok := list[len(list)-3].(*Obj); ok {
				since = e.Str("id")
			}
		}
	}
	if err := calls(
		map[string]any{"type": "get_entries", "since": since},
		map[string]any{"type": "get_entries", "since": "nope0000"},
		map[string]any{"type": "get_tree"},
	); err != nil {
		return fail(err)
	}
	// A manual compaction aborted while its summary streams: the abort's response first, then the
	// summary is let go and the compact command's response awaited (whatever it says).
	compactID := p.send(map[string]any{"type": "compact"})
	if _, err := p.event("compaction_start"); err != nil {
		return fail(err)
	}
	abortID := p.send(map[string]any{"type": "abort"})
	compacted := false
	if _, err := p.until("abort response", func(o *Obj) bool {
		compacted = compacted || o.Str("type") == "response" && o.Str("id") == compactID
		return o.Str("type") == "response" && o.Str("id") == abortID
	}); err != nil {
		return fail(err)
	}
	w.release()
	if !compacted {
		if _, err := p.until("compact response", func(o *Obj) bool { return o.Str("type") == "response" && o.Str("id") == compactID }); err != nil {
			return fail(err)
		}
	}
	if err := calls(map[string]any{"type": "get_state"}, map[string]any{"type": "prompt", "message": "after the abort"}); err != nil {
		return fail(err)
	}
	if err := p.idle(); err != nil {
		return fail(err)
	}
	// A steer and a follow-up queued while the answer streams, then taken back with clear_queue.
	p.send(map[string]any{"type": "prompt", "message": "queue and clear"})
	if _, err := p.event("message_update"); err != nil {
		return fail(err)
	}
	if err := calls(
		map[string]any{"type": "steer", "message": "steer to clear"},
		map[string]any{"type": "follow_up", "message": "follow-up to clear"},
		map[string]any{"type": "clear_queue"},
		map[string]any{"type": "get_state"},
	); err != nil {
		return fail(err)
	}
	w.release()
	if err := p.idle(); err != nil {
		return fail(err)
	}
	if err := calls(map[string]any{"type": "get_messages"}); err != nil {
		return fail(err)
	}
	code, err := p.finish()
	run.code, run.log, run.stderr = code, p.log, p.stderr.String()
	p.save()
	return run, err
}

// checkRPCNew runs rpcNewScenario in both programs and compares transcripts, requests, the session
// file and settings.json (pi 1.6's set_model and set_thinking_level write no defaults).
func (c *checker) checkRPCNew() error {
	wa, wb, err := c.pair("rpc-new")
	if err != nil {
		return err
	}
	defer wa.close()
	defer wb.close()
	ra, err := c.rpcNewScenario(wa)
	if err != nil {
		return err
	}
	rb, err := c.rpcNewScenario(wb)
	if err != nil {
		return err
	}
	c.compareEvents("rpc new commands: output", outputOf(ra), outputOf(rb), c.norm(wa.root), c.norm(wb.root))
	c.compareRequests("rpc new commands: requests", wa.requests(), wb.requests(), wa, wb)
	c.compareSessionFiles("rpc new commands: session file", ra.sessionFile, rb.sessionFile, wa, wb)
	c.compareSettings("rpc new commands: settings.json", wa, wb)
	return nil
}

// outputOf is what the program wrote in a run (the commands left out).
func outputOf(r *rpcRun) []*Obj {
	var o []*Obj
	for _, rec := range r.log {
		if !rec.In {
			o = append(o, rec.Msg)
		}
	}
	return o
}
