// Package jsonx holds the JSON primitives that several packages of pi-go must share byte for byte:
// writing strings and numbers as JavaScript's JSON.stringify does, and reading a string literal as
// encoding/json (and so JSON.parse, on valid UTF-8) does, without building any value. Readers report
// a malformed literal as a *stringError that says what is wrong and where, so that each caller words
// the error as it must (encoding/json's texts for the OpenAI chunk decoder, offsets for session files).
//
// It is a leaf: it imports nothing of pi-go and knows no message, session or protocol. It sits below
// provider in DESIGN.md's layering, and every package may import it.
package jsonx
