// Package harness is the coding-agent session (pi's AgentSession): it wires the agent loop to a
// provider, the built-in tools and the session store; runs every prompt through one input pipeline
// (extension commands and input handlers, /skill:name, prompt templates; input.go); composes the
// system prompt from context files and skills;
// persists every message; keeps the display queues of steering and follow-up messages; switches models
// and thinking levels; runs the user's `!` commands; retries transient errors and compacts the context.
// It knows no terminal UI and no wire protocol: the TUI, the print/JSON modes and RPC subscribe to its
// events.
package harness
