// Package compaction is the context-compaction machinery of the coding-agent session, as pi 0.73.1
// has it: token accounting (estimates, context usage, the threshold), the preparation of a compaction
// (where to cut a branch, what to summarise, split turns, the previous summary, the files touched),
// the summary requests with pi's prompts, and the branch summaries of tree navigation.
//
// It reads session entries (internal/session) and provider messages, and asks a model for summaries
// through a loop.StreamFunc. It decides nothing about when to compact and writes nothing: the harness
// triggers compactions, emits compaction_start/compaction_end, appends the compaction or
// branch_summary entry and rebuilds the transcript. It knows no harness, no configuration file, no UI
// and no vendor; the conversion of coding-agent messages for the model is passed in.
package compaction
