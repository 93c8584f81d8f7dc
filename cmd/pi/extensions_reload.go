package main

import "context"

// ReloadExtensions is the extensions' part of /reload (and of ctx.reload()), as pi's
// AgentSession.reload: session_shutdown with reason "reload", the TypeScript extensions discovered
// and loaded again in the sidecar under a new runner, every extension tool registered anew and
// active, then session_start with reason "reload" (awaited). The session's Reload goes on with the
// settings, the context files and resources_discover with reason "reload".
func (e *extensionHost) ReloadExtensions(ctx context.Context) error {
	if !e.host.Started() {
		return nil // still starting: the start loads them as they are now
	}
	e.ready(ctx)
	found, _ := e.a.findExtensions(e.sess.Cwd(), false)
	scripts := found.Scripts
	// pi rebuilds its tools with every extension tool active: drop them, so that the new
	// registrations come as new tools.
	e.toolsMu.Lock()
	e.sess.SyncExtensionTools(nil)
	e.toolsMu.Unlock()
	err := e.host.Reload(ctx, scripts)
	e.syncTools()
	e.tuiShortcuts()
	e.host.Emit(ctx, "session_start", map[string]any{"type": "session_start", "reason": "reload"})
	return err
}
