// Package filewatch tells when one file changes: written, replaced by a rename (as editors save),
// created or removed. On Linux it waits on inotify, so a watch costs no wakeup while nothing
// changes (the TUI's idle CPU stays at zero); elsewhere it is not available. It knows nothing of
// what the file holds.
package filewatch

import "time"

// settle is how long a file must stay quiet before a change is reported: an editor's save is
// several events (truncate, write, rename), and the reader should see the finished file (pi waits
// 100 ms too).
const settle = 100 * time.Millisecond
