// Package tools holds the built-in tools (read, write, edit, bash, grep, find, ls). Each implements
// loop.Tool with pi's parameters, limits and texts. Tools know the loop's Tool interface and nothing
// of the harness, the session or the UI.
package tools
