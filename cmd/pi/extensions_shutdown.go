package main

// ctx.shutdown() of an extension ends pi-go as it ends pi, gracefully, in each mode: the TUI quits
// as with /quit once idle (after the current run has settled); RPC mode ends as at the end of its
// input once no command is in progress and the session is idle; the print modes, which pi binds no
// shutdown handler in, end when their prompts are done anyway, so the request changes nothing.
// Either way the extensions then get session_shutdown (the sidecar raises it on shutdown).

// requestShutdown handles the extension request "shutdown".
func (e *extensionHost) requestShutdown() {
	switch e.mode {
	case "tui":
		if u := e.tuiUI(); u != nil {
			u.Shutdown()
		}
	case "rpc":
		select {
		case e.shutdown <- struct{}{}:
		default: // asked already
		}
	}
}

// shutdownRequests is RPC mode's end of requestShutdown (nil without extensions).
func (e *extensionHost) shutdownRequests() <-chan struct{} {
	if e == nil {
		return nil
	}
	return e.shutdown
}
