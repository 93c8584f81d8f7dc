// Package render is the presentation layer of pi-go's interactive TUI: pure functions from state
// (messages, tool calls, footer data, status) and a terminal width to styled lines, in the manner of
// lazygit's presentation package. Every line it returns fits the width it was given (measured with
// escape sequences ignored and wide characters counted twice) and closes the styles it opens.
//
// Every chat block (a message, a tool call, a notice) starts with one empty line, pi's spacer, so the
// caller prints blocks back to back. Markdown goes through glamour with one renderer per width and a
// cache of rendered blocks; MarkdownStream and AssistantStream render a growing message by finished
// blocks plus a re-rendered tail and tell which lines are final and may go to the scrollback.
//
// The package knows provider messages and loop tool results; it knows nothing of Bubble Tea, the
// harness, sessions, files or the clock: the caller passes in the time-dependent parts (elapsed
// time, spinner frame).
package render
