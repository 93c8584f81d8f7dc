package render

import (
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// CompactionSummary renders the block that stands for compacted history: "[compaction]" and
// "Compacted from N tokens (ctrl+o to expand)", or, expanded, the summary as markdown.
func (r *Renderer) CompactionSummary(m *provider.CompactionSummaryMessage, expanded bool, width int) []string {
	return r.compactionSummary(m, expanded, mdMeta{}, width)
}

func (r *Renderer) compactionSummary(m *provider.CompactionSummaryMessage, expanded bool, meta mdMeta, width int) []string {
	tokens := thousands(m.TokensBefore)
	if expanded {
		// As pi: transformers see the summary, not the header.
		return r.labelBox("compaction", "**Compacted from "+tokens+" tokens**\n\n", m.Summary, MDSummary, meta, width)
	}
	return r.collapsedBox("compaction", "Compacted from "+tokens+" tokens", width)
}

// BranchSummary renders the summary of a branch the conversation returned from: "[branch]" and
// "Branch summary (ctrl+o to expand)", or, expanded, the summary as markdown.
func (r *Renderer) BranchSummary(m *provider.BranchSummaryMessage, expanded bool, width int) []string {
	return r.branchSummary(m, expanded, mdMeta{}, width)
}

func (r *Renderer) branchSummary(m *provider.BranchSummaryMessage, expanded bool, meta mdMeta, width int) []string {
	if expanded {
		return r.labelBox("branch", "**Branch Summary**\n\n", m.Summary, MDSummary, meta, width)
	}
	return r.collapsedBox("branch", "Branch summary", width)
}

// CustomMessage renders an extension message that is displayed: "[<type>]" and its text as
// markdown. Messages with Display false show nothing.
func (r *Renderer) CustomMessage(m *provider.CustomMessage, width int) []string {
	return r.customMessage(m, mdMeta{}, width)
}

func (r *Renderer) customMessage(m *provider.CustomMessage, meta mdMeta, width int) []string {
	if !m.Display {
		return nil
	}
	return r.labelBox(m.CustomType, "", provider.TextOf(m.Content, "\n"), MDCustom, meta, width)
}

func (r *Renderer) label(name string) string {
	return r.th.Style(theme.CustomMessageLabel, true, false, "["+oneLine(name)+"]")
}

// labelBox draws a labelled box of markdown: header, then body as the transformer of messageType
// leaves it.
func (r *Renderer) labelBox(name, header, body string, messageType string, meta mdMeta, width int) []string {
	cw := max(width-2, 1)
	lines := append(wrap(r.label(name), cw), "")
	lines = append(lines, r.text().Render(header+r.transform(body, messageType, cw, meta), cw)...)
	return append([]string{""}, box(lines, width, 1, 1, r.th.BgSeq(theme.CustomMessageBg))...)
}

func (r *Renderer) collapsedBox(name, text string, width int) []string {
	cw := max(width-2, 1)
	body := append(wrap(r.label(name), cw), "")
	line := r.th.Fg(theme.CustomMessageText, text+" (") + r.th.Fg(theme.Dim, r.keys.Expand) +
		r.th.Fg(theme.CustomMessageText, " to expand)")
	body = append(body, wrap(line, cw)...)
	return append([]string{""}, box(body, width, 1, 1, r.th.BgSeq(theme.CustomMessageBg))...)
}

// thousands formats n with comma separators, as JavaScript's toLocaleString does in English.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
