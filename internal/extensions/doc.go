// Package extensions is pi-go's extension host. Extensions run in child processes that speak the
// JSON-lines protocol of docs/extension-protocol.md on their stdin and stdout: pi's own TypeScript
// extensions run together in one Node sidecar (sidecar.mjs, which loads them with the installed pi
// package's loader and ExtensionRunner), and an extension written in any other language is a plain
// executable that speaks the protocol itself.
//
// The host starts its processes in the background and never on the path to the first frame; with no
// extension configured nothing is started at all. Every call has a deadline (paused while the
// extension waits for the user), so a hanging or crashing extension costs an error, never the session.
//
// The package knows the loop's Tool interface and the provider's message types; it knows nothing of
// the harness, the TUI or the RPC mode, which reach it through the Host's methods and the UI and
// Actions interfaces they implement.
package extensions
