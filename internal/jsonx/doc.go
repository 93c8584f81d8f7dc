// Package jsonx holds the JSON that several packages of pi-go must share byte for byte: writing
// strings and numbers as JavaScript's JSON.stringify does, and reading with Scanner. The OpenAI chunk
// decoder, the demo model's request reader, session files, the message decoder and the RPC command
// reader all walk JSON with it, in memory or from an io.Reader, taking what they need without building
// a value. It accepts what encoding/json accepts, decodes strings as it does and words errors as it
// does, so that pi-go's answers to bad input do not depend on which package read it.
//
// Why not encoding/json/jsontext (github.com/go-json-experiment/json v1.27.2, the proxy's latest; Go
// 1.26 has it only behind GOEXPERIMENT=jsonv2): measured on the same walks, CPU time, 8 interleaved
// runs on a shared 2-core machine, medians:
//
//	one streamed delta (SSE completeness check + chunk decode)   Scanner 449 ns   jsontext 904 ns
//	50 MB session, every line walked, every string decoded        Scanner 257 ms   jsontext 251 ms
//	the same 50 MB as one value read from an io.Reader           Scanner 175 ms   jsontext 259 ms
//
// It would double the per-delta cost (the budget is about 700 ns for the whole delta), be slower on
// streamed requests and no faster on sessions; it has no loose skip for the payloads session loading
// only delimits, and its error texts ("jsontext: invalid character ']' at start of value within "/1"
// after offset 3") are not the ones the chunk decoder and the demo model reproduce.
//
// It is a leaf: it imports nothing of pi-go and knows no message, session or protocol. It sits below
// provider in DESIGN.md's layering, and every package may import it.
package jsonx
