// Package checkpoint keeps per-turn snapshots of a project's working tree in a shadow git repository,
// so every file change of a turn, including what a shell command did, can be undone (rewind).
//
// One store per project lives under the agent directory, at
// <agentDir>/checkpoints/<first 16 hex digits of sha256(absolute project path)>/. It is driven by the
// git binary with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE pointing into the store and every GIT_*
// variable of the user's environment removed, with the system and global git configuration off and
// hooks disabled. The user's own .git (index, refs, stash, hooks, config) is never read or written,
// and directories that are not git repositories work the same.
//
// What a snapshot holds:
//   - every file under the project directory that git's ignore rules do not ignore: the project's
//     .gitignore files and the user's global excludes file (core.excludesFile from the global or
//     system git configuration, else $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore; a change to
//     its content is noticed at the next snapshot, a change to the configuration naming it when pi-go
//     starts again); the project repository's .git/info/exclude and its own configuration do not apply;
//   - regular files up to MaxFileSize bytes (default 10 MiB); larger ones are left out, reported in
//     Checkpoint.Skipped, and never touched by a restore;
//   - symlinks as links (their target text), and the executable bit of regular files. Other
//     permission bits are not recorded (git's model: 644 or 755). A restore keeps the current
//     permission bits of a file that is still there, taking only the snapshot's executable bit, so a
//     0600 file stays 0600; a file the restore brings back gets 0644 or 0755 less the umask;
//   - the files of nested git repositories (a folder holding a .git folder or file: a clone, a
//     submodule, a worktree) like any others, so a rewind undoes what a command did in them too.
//     Git applies a repository's rules only from inside it, so in a nested repository its own
//     .gitignore files (and the global excludes file) decide, not the project's; a folder that
//     becomes a repository or stops being one switches rules at the next snapshot. Their .git is
//     never read, snapshotted or written: a restore writes and deletes work-tree files only, so
//     rewinding to before a clone deletes the clone's files and leaves its .git folder (with
//     everything it needs to check them out again).
//
// How a snapshot is taken: the store keeps a manifest of the latest snapshot (each file's size,
// times, inode, mode and blob; each folder's tree; the paths git ignores). A snapshot walks the tree's
// stat data (folders on as many goroutines as there are processors), reads only the files whose stat
// changed (and those changed so recently that a later change could keep the same stat: git's
// "racily clean" rule), and writes the new blobs, the trees along their paths and the commit as loose
// objects itself: no git process runs. The manifest is a base file plus a log to which each snapshot
// appends the folders it changed; the base is written again when the log outgrows it. Git decides only
// what is ignored, for paths not seen before (one git status in a scratch repository, limited to
// them) or for the whole tree when a .gitignore changed. Pruning collects the store with git gc
// outside the store's lock, keeping objects and checkpoints younger than a grace period, so snapshots
// never wait for it; cancelling it kills gc's process group.
//
// Bytes are stored unconverted: the store's info/attributes turns off end-of-line conversion, filters
// and ident expansion whatever the project's .gitattributes say.
//
// The package knows nothing of sessions, tools or the TUI: callers name a snapshot by its commit id
// and keep their own record of which turn it belongs to.
package checkpoint
