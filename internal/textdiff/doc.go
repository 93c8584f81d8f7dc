// Package textdiff owns pi's diff text: the line diff the edit tool reports (computed as jsdiff's
// diffLines computes it, printed in pi's numbered format by Format), the parsing of that text back
// into lines (Parse, for the TUI's diff renderer), and the changed words of a modified line
// (ChangedWords, which the renderer marks).
//
// It is a leaf: it imports nothing of pi-go and knows no tool, file, theme or terminal; callers
// colour and wrap the lines themselves.
//
// The diff is ours rather than a library's because the hunks must be jsdiff's, line for line: Myers
// has many equally short answers, and only jsdiff's tie-breaks pick pi's (TestFormatMatchesPi checks
// 398 generated cases against pi's own output).
package textdiff
