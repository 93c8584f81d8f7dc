// Package tools holds the built-in tools (read, write, edit, bash, grep, find, ls). Each implements
// loop.Tool with pi's parameters, limits and texts. Tools know the loop's Tool interface and nothing
// of the harness, the session or the UI.
//
// Commands run through tools/shell (see there for how they are kept from waiting for a person); pi's
// output limits and truncation live in tools/output.
package tools
