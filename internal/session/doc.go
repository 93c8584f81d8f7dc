// Package session is pi's JSONL v3 session store: one file per session under
// <agentDir>/sessions/--<encoded cwd>--/, a header line and then one entry per line, the entries linked
// into a tree by 8-hex id/parentId. It appends entries (one write of complete lines, under an exclusive
// flock), loads files robustly (torn tails, malformed lines, v1/v2 migration), rebuilds the model context
// of a branch (compaction, branch summaries, custom messages, pi 1.6's context edits, model and thinking
// level), sums what the session was billed (messages and pi 1.6's usage entries), forks and lists
// sessions.
//
// It knows provider's message types and nothing else of pi-go: no loop, no harness, no UI, no config
// lookup. Directories are parameters; warnings are returned, never printed.
//
// Files pi wrote load here and files written here load in pi. A line read from a file is never
// re-serialised into that file: unknown entry types and fields survive because the bytes are kept.
//
// A torn last line (a writer killed inside write(2)) is moved, under the file's lock, to a sidecar file
// beside the session, <session>.jsonl.torn-<time>, written and fsynced before the tail is cut off: the
// session file stays valid JSONL for strict readers and nothing is lost. Only that tail is ever cut; a
// complete last entry that merely lacks its newline is kept and terminated before the next append;
// malformed lines elsewhere stay in the file, skipped with a warning. A file without a readable header
// is never modified (pi refuses it): a new session starts beside it.
package session
