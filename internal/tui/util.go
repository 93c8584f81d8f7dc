package tui

import (
	"encoding/base64"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

func itoa(n int) string { return strconv.Itoa(n) }

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string {
	if render.Width(s) <= width {
		return s
	}
	return ansi.Truncate(s, max(width, 0), "")
}

// osc52 is the sequence that puts text on the system clipboard through the terminal (it works over
// SSH and in tmux with set-clipboard on).
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}

// settings are the current settings (defaults without a settings manager).
func (m *model) settings() config.Settings {
	if m.opts.Settings == nil {
		return config.Settings{}
	}
	return m.opts.Settings.Settings()
}

// userPromptText is the text of a user message ("" for other messages).
func userPromptText(msg provider.Message) string {
	if u, ok := msg.(*provider.UserMessage); ok {
		return provider.TextOf(u.Content, "")
	}
	return ""
}
