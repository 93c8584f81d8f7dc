// Package tui is pi-go's interactive terminal UI: a Bubble Tea program that drives a
// harness.Session, in one of pi's two modes (tuiMode, --tui-mode).
//
// Regular mode draws on the terminal's main screen: finished blocks (prompts, answers, tool calls
// with their results, notices) are printed into the terminal's scrollback; only the live region
// under them is redrawn: the unfinished tail of a streaming answer, running tools, queued messages,
// the status line, the editor (or a selector) and the footer. So a frame costs the same at message
// 10 and at message 10,000, and the terminal keeps its native scrolling, selection and copy. Every
// printed block is kept (model.done) with its render cached per width: when the width changes (once
// it holds for a moment) or Ctrl+O / Ctrl+T change how blocks are shown, the screen and scrollback
// are cleared and the transcript is printed again, as pi does (relayout.go).
//
// Fullscreen mode (pi 1.x's default) draws on the alternate screen: the same blocks in a viewport
// above the editor, scrolled with keys and the mouse wheel, searched, selected with the mouse and
// copied with OSC 52; on exit the transcript (or a resume hint) is printed on the main screen
// (fullscreen.go). That viewport is pi-go's own, not bubbles' viewport: bubbles' takes its content
// as one string (SetContent splits it and measures every line), and a streaming answer changes the
// content every frame, so each frame would pass the whole transcript. Measured with the same
// streaming frame (BenchmarkBubblesViewportFrame against BenchmarkFrame, 2 loaded cores): 0.7 ms at
// 10 messages, 24–32 ms at 1,000 and 180–250 ms at 10,000, growing with the transcript, where the
// own viewport, which renders only the blocks in view, stays at 20–40 µs at every size.
//
// This package is the program: the model, the dispatch of keys and messages, the harness's events,
// the chat, the slash commands and completion. Its parts live below it: screen draws the terminal
// (instead of Bubble Tea's renderer; its doc says why, with measurements), editor is the prompt
// editor, picker the selectors (they return their choices as messages that the model handles),
// render turns state into styled lines and theme holds the palettes. Bubble Tea still reads the
// keyboard, runs the event loop and the commands; bubbles gives the keymap (key), /hotkeys (help),
// the working indicator (spinner, which ticks only while something runs: an idle UI has no timer)
// and the pickers' search lines (textinput).
//
// It knows the harness, the session store, the loop's event types and those packages. It knows
// nothing of providers' wire formats, the command line or how the session was chosen.
package tui
