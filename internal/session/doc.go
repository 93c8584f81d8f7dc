// Package session is pi's JSONL v3 session store: one file per session under
// <agentDir>/sessions/--<encoded cwd>--/, a header line and then one entry per line, the entries linked
// into a tree by 8-hex id/parentId. It appends entries (one write of complete lines, under an exclusive
// flock), loads files robustly (torn tails, malformed lines, v1/v2 migration), rebuilds the model context
// of a branch (compaction, branch summaries, custom messages, model and thinking level), forks and lists
// sessions.
//
// It knows provider's message types and nothing else of pi-go: no loop, no harness, no UI, no config
// lookup. Directories are parameters; warnings are returned, never printed.
//
// Files pi wrote load here and files written here load in pi. A line read from a file is never
// re-serialised into that file: unknown entry types and fields survive because the bytes are kept.
//
// A torn last line (a writer killed inside write(2), a missing newline) is terminated with '\n' before
// the next append, not truncated: a complete entry that only lacks its newline is kept, and bytes
// pi-go did not write are never destroyed; an incomplete line then stays in the file as a malformed
// line, skipped with a warning like any other. A file without a readable header is never rewritten
// (pi truncates it): a new session starts beside it.
package session
