// Package rpc speaks pi's machine interfaces over stdin/stdout: the JSON event stream of
// `pi --mode json` and the RPC protocol of `pi --mode rpc`. It knows the harness and the loop's event
// types, and nothing of the terminal UI.
package rpc
