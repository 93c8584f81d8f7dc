package render

import (
	"github.com/pi-go/pi-go/internal/textdiff"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Diff renders pi's numbered diff text (the edit tool's details.diff: "+12 added", "-12 removed",
// " 12 context", "    ..." for skipped lines; textdiff owns the format): added lines green, removed
// red, context dim. A single changed line (one removed followed by one added) has its changed words
// shown inverted.
func (r *Renderer) Diff(diff string, width int) []string {
	lines := textdiff.Parse(diff)
	var out []string
	emit := func(k theme.Key, s string) { out = append(out, wrap(r.th.Fg(k, s), width)...) }
	for i := 0; i < len(lines); {
		l := lines[i]
		switch l.Kind {
		case textdiff.Removed:
			start := i
			for i < len(lines) && lines[i].Kind == textdiff.Removed {
				i++
			}
			removed := lines[start:i]
			start = i
			for i < len(lines) && lines[i].Kind == textdiff.Added {
				i++
			}
			added := lines[start:i]
			if len(removed) == 1 && len(added) == 1 {
				oldText, newText := r.intraLine(cleanOutput(removed[0].Text), cleanOutput(added[0].Text))
				out = append(out, wrap(r.th.Fg(theme.ToolDiffRemoved, "-"+removed[0].Num+" "+oldText), width)...)
				out = append(out, wrap(r.th.Fg(theme.ToolDiffAdded, "+"+added[0].Num+" "+newText), width)...)
				continue
			}
			for _, l := range removed {
				emit(theme.ToolDiffRemoved, "-"+l.Num+" "+cleanOutput(l.Text))
			}
			for _, l := range added {
				emit(theme.ToolDiffAdded, "+"+l.Num+" "+cleanOutput(l.Text))
			}
		case textdiff.Added:
			emit(theme.ToolDiffAdded, "+"+l.Num+" "+cleanOutput(l.Text))
			i++
		case textdiff.Context:
			emit(theme.ToolDiffContext, " "+l.Num+" "+cleanOutput(l.Text))
			i++
		default:
			emit(theme.ToolDiffContext, cleanOutput(l.Text))
			i++
		}
	}
	return out
}

// intraLine marks the changed words of a modified line in both versions (inverted).
func (r *Renderer) intraLine(oldText, newText string) (string, string) {
	if r.th.FgSeq(theme.ToolDiffAdded) == "" {
		return oldText, newText // no colours: nothing to invert with
	}
	a, b := []rune(oldText), []rune(newText)
	oldSpan, newSpan := textdiff.ChangedWords(a, b)
	return markSpan(a, oldSpan), markSpan(b, newSpan)
}

func markSpan(s []rune, span textdiff.Span) string {
	if span.From >= span.To {
		return string(s)
	}
	return string(s[:span.From]) + theme.ReverseOn + string(s[span.From:span.To]) + theme.ReverseOff + string(s[span.To:])
}
