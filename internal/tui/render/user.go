package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// UserMessage renders a prompt, steering or follow-up message: its text as markdown in a tinted box,
// images as placeholders.
func (r *Renderer) UserMessage(m *provider.UserMessage, width int) []string {
	return r.userMessage(m, mdMeta{}, width)
}

func (r *Renderer) userMessage(m *provider.UserMessage, meta mdMeta, width int) []string {
	var text []string
	var images []string
	for _, c := range m.Content {
		switch c.Type {
		case provider.ContentText:
			text = append(text, c.Text)
		case provider.ContentImage:
			images = append(images, imagePlaceholder(c))
		}
	}
	return r.userBox(strings.Join(text, "\n"), images, meta, width)
}

// UserText renders a user message given as plain text (an optimistic echo before the event arrives).
func (r *Renderer) UserText(text string, width int) []string {
	return r.userBox(text, nil, mdMeta{}, width)
}

func (r *Renderer) userBox(text string, images []string, meta mdMeta, width int) []string {
	cw := max(width-2, 1)
	var body []string
	if strings.TrimSpace(text) != "" {
		body = append(body, r.text().Render(r.transform(text, MDUser, cw, meta), cw)...)
	}
	for _, img := range images {
		body = append(body, r.th.Fg(theme.Muted, Truncate(img, cw, "...")))
	}
	if len(body) == 0 {
		body = []string{""}
	}
	return append([]string{""}, box(body, width, 1, 1, r.th.BgSeq(theme.UserMessageBg))...)
}
