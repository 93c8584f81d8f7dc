// Package editor is the TUI's multi-line prompt editor: text with a cursor that wraps at word
// boundaries, pi's prompt history (Up and Down browse it from the first and last visual rows), large
// pastes kept as "[paste #n ...]" markers that behave as one character, an emacs kill ring (Ctrl+W,
// Ctrl+U, Ctrl+K, Alt+D, Ctrl+Y, Alt+Y) and undo (Ctrl+_). The session picker's rename field, the
// tree's label field and the text dialogs use it too.
//
// pi-go does not use bubbles' textarea (v1.0.0): it has no kill ring, no undo and no paste markers,
// and it cannot report its visual rows (LineInfo covers the cursor's line only), while the live
// region must know the editor's exact height and pi's history rules whether the cursor is on the
// first or last visual row; its viewport also keeps a stale scroll offset when the text shrinks.
//
// The package knows keys and text only: not the program, the session or what a submitted prompt
// does.
package editor
