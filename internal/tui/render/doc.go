// Package render is the presentation layer of pi-go's interactive TUI: pure functions from state
// (messages, tool calls, footer data, status) and a terminal width to styled lines, in the manner of
// lazygit's presentation package. Every line it returns fits the width it was given (measured with
// escape sequences ignored and wide characters counted twice) and closes the styles it opens.
//
// Every chat block (a message, a tool call, a notice) starts with one empty line, pi's spacer, so the
// caller prints blocks back to back. Markdown is parsed by goldmark's CommonMark core (plus tables,
// strikethrough and task lists, implemented here) and laid out in pi's look by this package, with a
// cache of rendered blocks; MarkdownStream and AssistantStream render a growing message by finished
// blocks plus a re-rendered tail and tell which lines are final and may go to the scrollback. Code
// is coloured by a table-driven highlighter of this package (syntax.go).
//
// The package knows provider messages and loop tool results; it knows nothing of Bubble Tea, the
// harness, sessions, files or the clock: the caller passes in the time-dependent parts (elapsed
// time, spinner frame).
//
// Startup: every pi process runs the package initialisation of everything linked, --version
// included, so this package links nothing that does work at initialisation: it used glamour and
// chroma, whose lexer registry, style sheets and HTML sanitiser cost 33 ms of package init before
// main (GODEBUG=inittrace=1, minimum of 30 runs on 2 loaded cores: 43.6 ms in all, 10.7 ms
// without them). goldmark's extension package is left out for the same reason (its autolink regular
// expressions compile at initialisation: 2 to 4 ms); bare URLs are found when text is rendered.
// New builds nothing heavy either: the markdown renderers and the highlighter come on first use, a
// language's word lists on its first code block.
package render
