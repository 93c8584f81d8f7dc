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
package session
