// Package picker holds the TUI's selectors, each shown in place of the editor and taking every key
// until it closes: the generic List (with the model, thinking level and fork pickers built on it), a
// one-field TextInput, the session picker with its search (Sessions) and the session tree (Tree).
// Their search lines are bubbles text inputs (filterField); the TextInput dialog and the label and
// rename fields are pi-go's editor, which has pi's editing keys.
//
// Each is a small Bubble Tea-style component: Update(msg) returns it and a command, View(width,
// rows) draws it. Its result is a message (ModelChosen, SessionChosen, EntryChosen, Cancelled...)
// that the owner handles, closing the picker; a picker that needs something done (list, delete or
// rename session files, save a label) asks with a message too (LoadSessions, DeleteSession,
// RenameSession, SetLabel) and is given the answer through Update. So a picker does no I/O and its
// commands never block: they only carry the message, and the owner may run them at once.
//
// The package knows what it shows (models, session files' descriptions, session entries) and how to
// draw it (render, theme): not the program, the harness session or the session store.
package picker
