package render

import (
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Prompt renders a user message as the chat shows it: a skill invocation (/skill:name) as pi does,
// a collapsed "[skill] name" line (the skill's instructions in full when expanded) followed by the
// words typed after the command as a user message of their own; any other message as UserMessage.
func (r *Renderer) Prompt(m *provider.UserMessage, expanded bool, width int) []string {
	return r.prompt(m, expanded, mdMeta{}, width)
}

func (r *Renderer) prompt(m *provider.UserMessage, expanded bool, meta mdMeta, width int) []string {
	text := provider.TextOf(m.Content, "")
	b, ok := resources.ParseSkillBlock(text)
	if !ok || len(m.Content) != 1 {
		return r.userMessage(m, meta, width)
	}
	var out []string
	if expanded {
		// As pi: transformers see the skill's content, not the header.
		out = r.labelBox("skill", "**"+b.Name+"**\n\n", b.Content, MDCustom, meta, width)
	} else {
		cw := max(width-2, 1)
		line := r.label("skill") + " " + r.th.Fg(theme.CustomMessageText, b.Name) +
			r.th.Fg(theme.Dim, " ("+r.keys.Expand+" to expand)")
		out = append([]string{""}, box(wrap(line, cw), width, 1, 1, r.th.BgSeq(theme.CustomMessageBg))...)
	}
	if b.UserMessage != "" {
		out = append(out, r.userBox(b.UserMessage, nil, meta, width)...)
	}
	return out
}
