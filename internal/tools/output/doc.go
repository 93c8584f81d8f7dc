// Package output holds pi's rules for the text a tool gives the model: the line and byte limits,
// truncation from the head, from the tail and of single lines (with the details pi stores), sizes as
// pi prints them, and bytes decoded to text as Node's TextDecoder does.
//
// It is a leaf below tools and tools/shell (the bash tool, the user's `!` commands, read and the
// search tools all cut their output to the same limits). It knows no tool, no process and no
// file system.
package output
