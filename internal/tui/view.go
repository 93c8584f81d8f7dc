package tui

import (
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

const (
	// editorMaxRows is how tall the editor grows before it scrolls.
	editorMaxRows = 10
)

// drawFrame prints the blocks that became final and redraws the live region. The terminal's size
// is read first: a resize whose signal has not arrived yet has already re-wrapped the screen, and a
// frame computed for the old width would start on the wrong row.
func (m *model) drawFrame() {
	if w, h := m.term.Size(); w > 0 && (w != m.width || h != m.height) {
		m.resize(w, h)
	}
	now := time.Now()
	m.lastFrame = now
	m.syncExtTerminal()
	if m.fullscreen {
		m.drawFullscreen(now)
		return
	}
	print := m.flushChat(m.width)
	m.scr.Draw(print, m.liveLines(now))
}

// bottomLines is what stays under the conversation: queued messages and `!` commands run during the
// agent's run, the status line, the editor (or a selector), completion suggestions and the footer.
func (m *model) bottomLines(w int, now time.Time) []string {
	var bottom []string
	bottom = append(bottom, m.pendingLines(w, now)...)
	bottom = append(bottom, m.statusLines(w, now)...)
	if m.sel != nil {
		bottom = append(bottom, m.sel.View(w, m.selectorRows())...)
	} else if custom, ok := m.extCustomLines(w); ok {
		bottom = append(bottom, m.extWidgetLines(false, w)...)
		bottom = append(bottom, custom...)
		bottom = append(bottom, m.extWidgetLines(true, w)...)
	} else {
		bottom = append(bottom, m.fullscreenBars(w)...)
		bottom = append(bottom, m.extWidgetLines(false, w)...)
		bottom = append(bottom, m.editorLines(w)...)
		bottom = append(bottom, m.ctrlCHintLines(w)...)
		bottom = append(bottom, m.comp.view(m, w)...)
		bottom = append(bottom, m.extWidgetLines(true, w)...)
	}
	return append(bottom, m.extFooterLines()...)
}

// liveLines composes the live region: the chat's unfinished blocks, queued messages and `!`
// commands run during the agent's run, the status line, the editor (or a selector), completion
// suggestions and the footer. It is kept to at most half the screen (see maxLive), cutting the top
// of the chat part: what is cut is unfinished and reaches the scrollback in full once final.
func (m *model) liveLines(now time.Time) []string {
	w := m.width
	bottom := m.bottomLines(w, now)
	limit := m.maxLive()
	room := max(limit-len(bottom), 0)
	chat, total := m.liveChat(w, now, room)
	if total > room && room >= 2 {
		// The top of the unfinished part gives way; a marker says so (a block cut in the middle
		// would read as following whatever was printed above it).
		chat[len(chat)-room] = m.r.HiddenAbove(total-room+1, w)
	}
	out := append(chat, bottom...)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// maxLive is the tallest the live region may be: half the screen, so that even a terminal narrowed
// to half its width (re-wrapping every line into two rows) keeps all of it on screen and the next
// frame can erase it completely; at least 10 rows when the screen has them.
func (m *model) maxLive() int {
	if m.fullscreen {
		return max(m.height-3, 1) // the viewport keeps a few rows of the conversation in view
	}
	return max(m.height/2, min(m.height-1, 10), 1)
}

// selectorRows is the height a selector may take: what the live region has left once the footer,
// the pending area and the status line are drawn (the chat's unfinished part gives way).
func (m *model) selectorRows() int {
	now := time.Now()
	taken := len(m.extFooterLines()) + len(m.pendingLines(m.width, now)) + len(m.statusLines(m.width, now))
	return max(m.maxLive()-taken, 3)
}

// pendingLines are the queued messages and the `!` commands waiting for the run to end.
func (m *model) pendingLines(w int, now time.Time) []string {
	var out []string
	for _, it := range m.pendingBash {
		out = append(out, m.itemLines(it, w, now)...)
	}
	steering, followUp := m.steering, m.followUp
	for _, q := range m.compactionQueue {
		if q.followUp {
			followUp = append(append([]string(nil), followUp...), q.text)
		} else {
			steering = append(append([]string(nil), steering...), q.text)
		}
	}
	return append(out, m.r.Queued(steering, followUp, w)...)
}

// statusLines is the spinner line while something runs.
func (m *model) statusLines(w int, now time.Time) []string {
	st := render.Status{Activity: render.Idle}
	switch {
	case m.run.compacting:
		st = render.Status{Activity: render.Compacting, CompactionReason: m.run.compactionReason,
			Elapsed: now.Sub(m.run.compactStarted)}
	case m.run.retrying:
		st = render.Status{Activity: render.Retrying, Attempt: m.run.attempt, MaxAttempts: m.run.maxAttempts,
			RetryIn: m.run.retryUntil.Sub(now), Reason: m.run.retryReason, Elapsed: now.Sub(m.run.started)}
	case m.nav != nil:
		st = render.Status{Activity: render.Summarizing, Elapsed: now.Sub(m.nav.started)}
	case m.run.active:
		st.Activity, st.Elapsed = render.Working, now.Sub(m.run.started)
		st.Attempt, st.MaxAttempts = m.run.attempt, m.run.maxAttempts
		if name, n := m.runningTools(); n > 0 {
			st.Activity, st.Tool, st.Tools = render.RunningTool, name, n
		} else if m.run.thinking {
			st.Activity = render.Thinking
		}
	case m.run.prompting:
		st.Activity, st.Elapsed = render.Working, now.Sub(m.run.started)
	}
	st.Spinner = m.spin.View()
	if ind := m.ext.indicator; ind != nil {
		st.Spinner, st.Verbatim = ind.frame(now), true
	}
	if st, ok := m.extStatus(st); ok {
		return m.r.StatusLine(st, w)
	}
	return nil
}

// runningTools names the first running tool and counts them.
func (m *model) runningTools() (string, int) {
	name, n := "", 0
	for _, it := range m.chat {
		if it.kind == chatTool && !it.final && it.tool.Status == render.ToolRunning {
			if n == 0 {
				name = it.tool.Name
			}
			n++
		}
	}
	return name, n
}

// editorLines is the editor between its two rules, coloured by thinking level (or bash mode).
func (m *model) editorLines(w int) []string {
	if lines, ok := m.extEditorLines(w); ok {
		return lines
	}
	m.footerLines() // refreshes borderLevel
	level := m.borderLevel
	bash := m.ed.StartsWith('!')
	border := m.r.EditorBorder(level, bash, w)
	rows := m.ed.View(m.editorWidth(), editorMaxRows, true)
	out := make([]string, 0, len(rows)+2)
	out = append(out, border)
	for _, r := range rows {
		out = append(out, " "+r)
	}
	return append(out, border)
}

// editorWidth is the width of the editor's text (one column of margin on the left).
func (m *model) editorWidth() int { return max(m.width-1, 2) }

// footerLines renders the footer, recomputed only when something it shows changed (the session's
// model and thinking level are read here, not on every frame: reading them copies the transcript).
func (m *model) footerLines() []string {
	if !m.footerDirty && m.footerWidth == m.width && m.footer != nil {
		return m.footer
	}
	store := m.sess.Store()
	info := render.FooterInfo{
		Cwd:            m.sess.Cwd(),
		GitBranch:      m.gitBranch,
		SessionName:    store.SessionName(),
		AutoCompact:    m.sess.AutoCompactionEnabled(),
		ThinkingLevel:  string(m.sess.ThinkingLevel()),
		ContextUnknown: true,
	}
	if totals, err := m.sess.SessionTotals(); err == nil {
		info.Input, info.Output = totals.Input, totals.Output
		info.CacheRead, info.CacheWrite = totals.CacheRead, totals.CacheWrite
		info.Cost = totals.Cost.Total
	}
	m.borderLevel = "off"
	if mdl := m.sess.Model(); mdl != nil {
		info.Model, info.Provider, info.Reasoning = mdl.ID, mdl.Provider, mdl.Reasoning
		info.ContextWindow = mdl.ContextWindow
		if mdl.Reasoning {
			m.borderLevel = info.ThinkingLevel
		}
	}
	if cu, ok := m.sess.ContextUsage(); ok {
		if cu.ContextWindow > 0 {
			info.ContextWindow = cu.ContextWindow
		}
		if cu.Known {
			info.ContextPercent, info.ContextUnknown = cu.Percent, false
		}
	}
	info.ProviderCount = countProviders(m.modelCandidates())
	m.footer = m.r.Footer(info, m.width)
	m.footerWidth = m.width
	m.footerDirty = false
	return m.footer
}

func countProviders(models []*provider.Model) int {
	seen := map[string]bool{}
	for _, mdl := range models {
		seen[mdl.Provider] = true
	}
	return len(seen)
}

// releaseScreen gives the terminal back: the live region is erased and the blocks that had not
// reached the scrollback yet are printed (an answer cut short stays readable).
func (m *model) releaseScreen() {
	now := time.Now()
	if m.fullscreen {
		m.releaseFullscreen(now)
		return
	}
	print := m.flushChat(m.width)
	for _, it := range m.chat {
		print = append(print, m.itemLines(it, m.width, now)...)
	}
	for _, it := range m.pendingBash {
		print = append(print, m.itemLines(it, m.width, now)...)
	}
	m.chat, m.pendingBash = nil, nil
	m.scr.Release(print)
}

// releaseFullscreen leaves the alternate screen and prints what fullscreenExitOutput asks for on the
// main screen: the whole transcript ("transcript", the default), or only how to resume the session
// ("resume-hint").
func (m *model) releaseFullscreen(now time.Time) {
	m.scr.Release(nil)
	m.term.Leave()
	m.scr.SetAlternate(false)
	var print []string
	if m.settings().FullscreenExitOutput != "resume-hint" {
		m.flushChat(m.width)
		for i := 0; i < m.fsCount(); i++ {
			print = append(print, m.fsLines(i, now)...)
		}
		for _, it := range m.pendingBash {
			print = append(print, m.itemLines(it, m.width, now)...)
		}
	}
	if hint := m.resumeHint(); hint != nil {
		print = append(print, hint...)
	}
	m.chat, m.pendingBash = nil, nil
	m.scr.Release(print)
}

// resumeHint is pi's "To resume this session:" with the command, for a saved session on a terminal.
func (m *model) resumeHint() []string {
	store := m.sess.Store()
	if !m.term.OutputIsTerminal() || store.SessionFile() == "" {
		return nil
	}
	if _, err := os.Stat(store.SessionFile()); err != nil {
		return nil
	}
	return []string{m.r.Theme().Fg(theme.Dim, "To resume this session:"), "pi --session " + store.SessionID()}
}

// setTitle sets the terminal title as pi does: "π - <session name> - <cwd>".
func (m *model) setTitle() tea.Cmd {
	title := "π - "
	if name := m.sess.Store().SessionName(); name != "" {
		title += name + " - "
	}
	title += filepath.Base(m.sess.Cwd())
	m.scr.WriteSequence("\x1b]0;" + sanitizeTitle(title) + "\x07")
	return nil
}

// sanitizeTitle drops control characters, which would end the title sequence early.
func sanitizeTitle(s string) string {
	b := []rune(s)
	out := b[:0]
	for _, r := range b {
		if r >= 0x20 && r != 0x7f {
			out = append(out, r)
		}
	}
	return string(out)
}
