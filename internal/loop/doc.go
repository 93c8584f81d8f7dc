// Package loop is the agent loop and the Agent: it turns one prompt into as many turns as the model
// needs, runs tool batches, delivers steering and follow-up messages and honours abort. It knows no
// TUI, no vendor and no concrete tool: it sees providers through StreamFunc and tools through Tool.
package loop
