package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// rpcMiscScenario covers the commands the main RPC scenario does not: model lists and cycling, queue
// and retry settings, prompts while streaming (with and without streamingBehavior), steer and follow_up
// while idle, images, clone, get_commands, abort_bash, abort_retry.
func (c *checker) rpcMiscScenario(w *workspace) (*rpcRun, error) {
	w.script(
		scenario.Spec{Text: "Streaming slowly.", Pieces: 3, HoldAfter: hold(2)},
		scenario.Spec{Text: "After the steer."},
		scenario.Spec{Text: "After the first follow-up."},
		scenario.Spec{Text: "After the second follow-up."},
		scenario.Spec{Text: "I see an image."},
		scenario.Spec{Text: "## Goal\nNothing yet."},
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
	// A long bash command cancelled by abort_bash once it has started (it creates a file the driver
	// polls for: bash output is no event); both responses, in either order.
	bashID := p.send(map[string]any{"type": "bash", "command": "echo started; touch started.flag; sleep 20; echo never"})
	if err := waitFile(filepath.Join(w.proj, "started.flag")); err != nil {
		return fail(err)
	}
	abortID := p.send(map[string]any{"type": "abort_bash"})
	gotBash, gotAbort := false, false
	if _, err := p.until("bash and abort_bash responses", func(o *Obj) bool {
		if o.Str("type") == "response" {
			gotBash = gotBash || o.Str("id") == bashID
			gotAbort = gotAbort || o.Str("id") == abortID
		}
		return gotBash && gotAbort
	}); err != nil {
		return fail(err)
	}
	for _, cmd := range []map[string]any{
		{"type": "get_available_models"},
		{"type": "cycle_model"},
		{"type": "cycle_model"},
		{"type": "cycle_thinking_level"},
		{"type": "cycle_model"},
		{"type": "set_steering_mode", "mode": "all"},
		{"type": "set_follow_up_mode", "mode": "bogus"},
		{"type": "set_follow_up_mode", "mode": "one-at-a-time"},
		{"type": "set_auto_compaction", "enabled": false},
		{"type": "set_auto_retry", "enabled": false},
		{"type": "abort_retry"},
		{"type": "abort_bash"},
		{"type": "get_commands"},
		{"type": "get_last_assistant_text"},
		{"type": "get_state"},
		{"type": "steer", "message": "queued while idle"},
		{"type": "follow_up", "message": "follow-up while idle"},
		{"type": "get_state"},
	} {
		if _, err := p.call(cmd); err != nil {
			return fail(err)
		}
	}
	p.send(map[string]any{"type": "prompt", "message": "first"})
	if _, err := p.event("message_update"); err != nil {
		return fail(err)
	}
	for _, cmd := range []map[string]any{
		{"type": "prompt", "message": "rejected while streaming"},
		{"type": "prompt", "message": "queued as follow-up", "streamingBehavior": "followUp"},
		{"type": "prompt", "message": "queued as steer", "streamingBehavior": "steer"},
		{"type": "get_state"},
	} {
		if _, err := p.call(cmd); err != nil {
			return fail(err)
		}
	}
	w.release()
	if err := p.idle(); err != nil {
		return fail(err)
	}
	// In pi's own key order: pi keeps a client's image objects as sent, pi-go writes them in that order.
	img := json.RawMessage(`{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==","mimeType":"image/png"}`)
	for _, cmd := range []map[string]any{
		{"type": "set_model", "provider": "mock", "modelId": "mock-vision"},
		{"type": "prompt", "message": "look", "images": []any{img}},
	} {
		if _, err := p.call(cmd); err != nil {
			return fail(err)
		}
	}
	if err := p.idle(); err != nil {
		return fail(err)
	}
	for _, cmd := range []map[string]any{
		{"type": "get_messages"},
		{"type": "clone"},
		{"type": "get_state"},
		{"type": "get_messages"},
		{"type": "export_html", "outputPath": "out.html"},
		// Compacting an empty session: pi asks the model to summarise an empty conversation (the last
		// scripted answer); what pi-go does is compared.
		{"type": "new_session"},
		{"type": "compact"},
		{"type": "get_state"},
	} {
		if _, err := p.call(cmd); err != nil {
			return fail(err)
		}
	}
	code, err := p.finish()
	run.code, run.log, run.stderr = code, p.log, p.stderr.String()
	p.save()
	return run, err
}

// checkRPCMisc runs rpcMiscScenario in both programs and compares the transcripts and requests.
func checkRPCMisc(c *checker) error {
	wa, wb, err := c.pair("rpc-misc")
	if err != nil {
		return err
	}
	defer wa.close()
	defer wb.close()
	ra, err := c.rpcMiscScenario(wa)
	if err != nil {
		return err
	}
	rb, err := c.rpcMiscScenario(wb)
	if err != nil {
		return err
	}
	c.compareEvents("rpc misc: output", outputOf(ra), outputOf(rb), c.norm(wa.root), c.norm(wb.root))
	c.compareRequests("rpc misc: requests", wa.requests(), wb.requests(), wa, wb)
	c.compareSettings("rpc misc: settings.json", wa, wb)
	if c.ver.newerChecks {
		return c.checkRPCNew()
	}
	return nil
}

// waitFile polls for a file a command creates (a process's progress sends no event), 10 s at most.
func waitFile(path string) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s did not appear", path)
}
