package extensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// pi 1.6's project_trust: when a project has resources that need a trust decision, pi loads the
// user's (global) and the command line's extensions first and asks them; project-local extensions
// load only once trust is resolved. The host does the same without starting anything twice: Preload
// starts the processes of the host's configuration as it stands, ProjectTrust asks them, then
// SetExtensions names the final set and Start adds what is missing (the sidecar loads the project's
// scripts into its runner, beside the ones it has; new executables start), keeping load order.

// msgLoad asks the sidecar to load more extensions (sidecar only; answered with a result after a
// new register).
const msgLoad = "load"

// TrustVerdict is the decision of an extension's project_trust handler.
type TrustVerdict struct {
	Trusted bool
	// Remember: save the decision in trust.json (otherwise it holds for this process).
	Remember bool
}

// Preload starts the configured processes now, on the caller's path rather than in the background,
// and waits until they have registered (at most StartTimeout, or until ctx ends). Call it at most
// once, before Start, from the goroutine that will call Start and Close.
func (h *Host) Preload(ctx context.Context) {
	if h.Empty() || h.preloaded {
		return
	}
	h.preloaded = true
	ctx, cancel := context.WithTimeout(ctx, h.cfg.StartTimeout)
	defer cancel()
	stop := context.AfterFunc(h.startCtx, cancel) // Close gives up a preload too
	defer stop()
	h.preSidecar, h.pre = h.launch(ctx, h.cfg.Sidecar, h.cfg.Executables)
	if h.cfg.Sidecar != nil {
		h.preScripts = slices.Clone(h.cfg.Sidecar.Extensions)
	}
}

// ProjectTrust raises project_trust {cwd} with the preloaded processes that handle it, in load
// order, and returns the first decision ("yes" or "no"); ok is false when every handler was
// undecided, failed or timed out (each failure reported), so the caller's own resolution goes on.
// mode and hasUI are the handler's limited context (pi asks only its interactive mode's user).
func (h *Host) ProjectTrust(ctx context.Context, cwd, mode string, hasUI bool) (v TrustVerdict, ok bool) {
	body, err := json.Marshal(map[string]any{"type": "project_trust", "cwd": cwd, "mode": mode, "hasUI": hasUI})
	if err != nil {
		return v, false
	}
	for _, p := range h.pre {
		if !slices.Contains(p.registrations().Events, "project_trust") {
			continue
		}
		res, err := p.call(ctx, hostMessage{Type: msgEvent, Event: body}, h.cfg.CallTimeout, nil)
		if err == nil {
			v, ok, err = trustAnswer(res)
			if err == nil && ok {
				return v, true
			}
		}
		if ctx.Err() != nil {
			return v, false
		}
		if err != nil {
			h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: "project_trust", Error: err.Error()})
		}
	}
	return TrustVerdict{}, false
}

// trustAnswer reads {trusted, remember}; null and "undecided" decide nothing.
func trustAnswer(res json.RawMessage) (TrustVerdict, bool, error) {
	if len(res) == 0 || string(res) == "null" {
		return TrustVerdict{}, false, nil
	}
	var r struct {
		Trusted  string `json:"trusted"`
		Remember bool   `json:"remember"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return TrustVerdict{}, false, fmt.Errorf("project_trust answer: %w", err)
	}
	switch r.Trusted {
	case "yes", "no":
		return TrustVerdict{Trusted: r.Trusted == "yes", Remember: r.Remember}, true, nil
	case "undecided":
		return TrustVerdict{}, false, nil
	}
	return TrustVerdict{}, false, fmt.Errorf("project_trust answer: trusted is %q, not yes, no or undecided", r.Trusted)
}

// SetExtensions replaces the configured sidecar and executables with the final set (before Start):
// after Preload, the processes already running for some of them are kept.
func (h *Host) SetExtensions(sc *Sidecar, executables []string) {
	h.cfg.Sidecar = sc
	h.cfg.Executables = executables
}

// extend completes the preloaded processes to the configured set: the sidecar loads the scripts it
// lacks, missing executables start, and procs follows the configured order.
func (h *Host) extend(ctx context.Context) {
	// Started before the session existed: they get its state now, before anything else.
	h.stateMu.Lock()
	state := h.state
	h.stateMu.Unlock()
	for _, p := range h.pre {
		p.send(hostMessage{Type: msgState, State: &state})
	}
	byPath := map[string]*process{}
	for _, p := range h.pre {
		if p != h.preSidecar {
			byPath[p.path] = p
		}
	}
	var missing []string
	for _, exe := range h.cfg.Executables {
		if byPath[exe] == nil {
			missing = append(missing, exe)
		}
	}
	sidecar := h.preSidecar
	var sc *Sidecar
	switch {
	case h.cfg.Sidecar == nil:
		sidecar = nil
	case sidecar == nil:
		sc = h.cfg.Sidecar
	case !slices.Equal(h.preScripts, h.cfg.Sidecar.Extensions):
		if err := h.loadMore(ctx, sidecar, h.cfg.Sidecar.Extensions); err != nil {
			h.cfg.OnError(ExtensionError{ExtensionPath: sidecar.path, Event: "load", Error: err.Error()})
			if errors.Is(err, ErrExited) {
				sidecar, sc = nil, h.cfg.Sidecar // it died: a new one loads them all
			}
		}
	}
	started, procs := h.launch(ctx, sc, missing)
	if sc != nil {
		sidecar = started
	}
	for _, p := range procs {
		if p != started {
			byPath[p.path] = p
		}
	}
	h.sidecar = sidecar
	if sidecar != nil {
		h.procs = append(h.procs, sidecar)
	}
	for _, exe := range h.cfg.Executables {
		if p := byPath[exe]; p != nil {
			h.procs = append(h.procs, p)
		}
	}
	h.closeUnused()
}

// loadMore has the sidecar load paths (all its scripts, in load order): it loads those it has not
// tried yet into the runtime of the others, reports their failures as errors and registers again.
func (h *Host) loadMore(ctx context.Context, sidecar *process, paths []string) error {
	if _, err := sidecar.call(ctx, hostMessage{Type: msgLoad, Paths: paths}, h.cfg.StartTimeout, nil); err != nil {
		return fmt.Errorf("loading the project's extensions: %w", err)
	}
	return nil
}

// closeUnused closes the preloaded processes the final set left out.
func (h *Host) closeUnused() {
	for _, p := range h.pre {
		if !slices.Contains(h.procs, p) {
			go p.close(time.Second)
		}
	}
}

// closing is every process Close shuts down: the final set and what a preload left.
func (h *Host) closing() []*process {
	out := slices.Clone(h.procs)
	for _, p := range h.pre {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
