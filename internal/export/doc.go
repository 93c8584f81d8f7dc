// Package export writes a session out of pi-go: as one self-contained HTML page (the whole tree,
// the active branch shown, markdown, highlighted code, tool calls and results, diffs, images, costs)
// that opens offline, as a pi session file of the active branch (JSONL), and to a secret GitHub gist
// through the gh command (share). The TUI, the RPC server and the command line call it alike.
//
// It reads a session through internal/session and knows nothing of the TUI: the theme's colours are
// passed in by name. The page is written in one pass over the entries, each message decoded and
// dropped in turn, so memory stays bounded by the largest entry rather than the session.
package export
