// Package screen is the TUI's screen writer: in regular mode it prints finished blocks into the
// terminal's scrollback and redraws only the live region under them, in fullscreen mode it fills the
// alternate screen (Writer); it puts the terminal into the mode the UI needs, alternate screen and
// mouse reporting included, and gives it back (Terminal).
//
// pi-go draws the terminal itself instead of using Bubble Tea's renderer (Bubble Tea still reads the
// keyboard and runs the program), for two reasons measured with Bubble Tea v1.3.10:
//   - Its renderer redraws on a 60 fps ticker even when nothing changes: an idle program showing two
//     static lines in a tmux pane made about 330 context switches a second and used 170 ms of CPU in
//     10 s; the same program without the renderer (tea.WithoutRenderer) about 6 a second and 10 ms.
//     This writer draws only when the UI asks for a frame, so an idle UI does not wake up.
//   - When the terminal narrows, terminals that re-wrap (tmux, VTE, kitty, iTerm2...) turn each wide
//     line of the last frame into several rows; the renderer does not count them, so its next frame
//     starts too low and fragments of the old frames stay in the scrollback (six 110-column lines,
//     resized to 70 then 50 columns in tmux, left three old frames' lines joined in the history).
//     Writer.Resize counts the re-wrapped rows, so nothing of an old frame stays behind.
//
// The same writer draws fullscreen mode (Writer.SetAlternate): the frame fills the alternate screen
// from its top-left corner, every row rewritten and erased to its end rather than the screen cleared
// (tmux's scroll-on-clear would keep each cleared frame). The transcript's viewport there is ours
// too, not bubbles' viewport: that one holds the whole content as one string and lays it out on
// every update, while this one renders only the blocks it shows (each cached per width), so a frame
// costs the same at 10 and at 10,000 messages. The prompt editor is ours (package editor) because
// bubbles' textarea has no kill ring, no undo and no paste markers, which pi's editor has.
//
// The package knows terminals and escape sequences only: not what the lines say, nor the program
// that draws them.
package screen
