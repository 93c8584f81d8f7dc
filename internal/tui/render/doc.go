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
//
// Startup: New builds nothing heavy (the markdown pipelines and the highlighter come on first use),
// but importing this package links glamour/ansi and chroma's lexers, whose package initialisation
// runs in every pi process, --version included, and cannot be deferred while they are linked:
// chroma/lexers parses its 279 embedded lexer definitions into a registry (glamour/ansi imports it
// through chroma/quick, and so does the highlighter), chroma/styles its style sheets. Measured with
// GODEBUG=inittrace=1 (minimum of 20 runs, 2 loaded cores): chroma/lexers 20 ms, chroma/styles 7.7,
// bluemonday 2.9, goldmark/extension 2.3, of 41 ms of package init in all; pi --version took 57 ms
// (hyperfine, minimum) against 17 ms for the same packages without the markdown stack. Taking that
// cost away means owning the ANSI rendering of goldmark's tree and a lexer set loaded on first use.
package render
