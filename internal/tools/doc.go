// Package tools holds the built-in tools, one file each (read.go, write.go, edit.go, bash.go,
// grep.go, find.go, ls.go) with the model-facing description beside it (read.md, ...). Each
// implements loop.Tool with pi's parameters, limits and texts. The pieces several tools share are
// small files of their own: the definition helper and abort error (tooldef.go), argument decoding
// and JavaScript number semantics (args.go), path resolution (paths.go), the text of a listing
// result (listtext.go), file-system errors worded as Node's (fserrors.go), atomic writes
// (atomicwrite.go), the per-file queue of write and edit (mutation.go), and image handling for read
// and @-attachments (image.go, exif.go).
//
// Below it: tools/shell runs commands (the bash tool's and the user's `!` commands), tools/search
// finds files and lines (rg, fd or a pure-Go engine with the same results), tools/output holds pi's
// output limits and truncation, and textdiff the edit tool's diff text.
//
// Tools know the loop's Tool interface and nothing of the harness, the session or the UI.
package tools
