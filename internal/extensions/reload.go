package extensions

import (
	"context"
	"encoding/json"
	"fmt"
)

// msgReload asks the sidecar to load its extensions again (pi's reload of the extension runtime).
const msgReload = "reload"

// Reload is pi's /reload of the extensions: every process gets session_shutdown with reason
// "reload"; the sidecar then drops its extensions and loads scripts (the TypeScript and JavaScript
// extensions found again) with a new runner of pi's, and registers anew before it answers. Executable
// extensions keep running: they hear of the reload through the events only. The caller raises
// session_start with reason "reload" afterwards.
func (h *Host) Reload(ctx context.Context, scripts []string) error {
	body, _ := json.Marshal(map[string]any{"type": "session_shutdown", "reason": "reload"})
	for _, p := range h.subscribed(ctx, "session_shutdown") {
		// The sidecar raises it itself, in its runner, before it reloads.
		if p != h.sidecar {
			p.send(hostMessage{Type: msgEvent, Event: body})
		}
	}
	if h.sidecar == nil {
		return nil
	}
	if _, err := h.sidecar.call(ctx, hostMessage{Type: msgReload, Paths: scripts}, h.cfg.StartTimeout, nil); err != nil {
		return fmt.Errorf("reloading the extensions: %w", err)
	}
	return nil
}
