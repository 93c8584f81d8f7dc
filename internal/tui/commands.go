package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// slashCommand is one built-in command: matched on its exact name, or followed by a space and
// arguments when it takes some.
type slashCommand struct {
	name    string
	args    bool
	hint    string // argument hint shown in completion
	desc    string
	run     func(m *model, arg string) tea.Cmd
	enabled func(m *model) bool // nil: always
}

// commands is the list of built-in commands (completion shows them in this order).
func commands() []slashCommand {
	return []slashCommand{
		{name: "settings", desc: "Open settings menu", run: (*model).cmdSettings},
		{name: "model", args: true, hint: "[search]", desc: "Select model (opens selector UI)", run: (*model).cmdModel},
		{name: "thinking", args: true, hint: "[level]", desc: "Set the thinking level (opens selector UI)", run: (*model).cmdThinking},
		{name: "scoped-models", desc: "Enable/disable models for Ctrl+P cycling", run: (*model).cmdScopedModels},
		{name: "new", desc: "Start a new session", run: (*model).cmdNew},
		{name: "resume", desc: "Resume a different session", run: func(m *model, _ string) tea.Cmd { return m.openSessionPicker(false) }},
		{name: "session", desc: "Show session info and stats", run: (*model).cmdSession},
		{name: "name", args: true, hint: "<name>", desc: "Set session display name", run: (*model).cmdName},
		{name: "fork", desc: "Create a new fork from a previous message", run: func(m *model, _ string) tea.Cmd { m.openForkSelector(); return nil }},
		{name: "clone", desc: "Duplicate the current session at the current position", run: (*model).cmdClone},
		{name: "tree", desc: "Navigate session tree (switch branches)", run: func(m *model, _ string) tea.Cmd { m.openTreeSelector(""); return nil }},
		{name: "rewind", desc: "Restore files (and the conversation) to before a turn (pi-go)", run: (*model).cmdRewind},
		{name: "compact", args: true, hint: "[instructions]", desc: "Manually compact the session context", run: (*model).cmdCompact},
		{name: "export", args: true, hint: "[path]", desc: "Export session (HTML default, or specify path: .html/.jsonl)", run: (*model).cmdExport},
		{name: "import", args: true, hint: "<path.jsonl>", desc: "Import a JSONL session, preserving its ID and working directory", run: (*model).cmdImport},
		{name: "share", desc: "Share session as a secret GitHub gist", run: (*model).cmdShare},
		{name: "copy", desc: "Copy last agent message to clipboard", run: (*model).cmdCopy},
		{name: "hotkeys", desc: "Show all keyboard shortcuts", run: (*model).cmdHotkeys},
		{name: "trust", desc: "Save a project trust decision for future Pi processes", run: (*model).cmdTrust,
			enabled: func(m *model) bool { return m.opts.Trust != nil }},
		{name: "mcp", args: true, hint: "[action server]", desc: "Inspect MCP servers: tools, reconnect, enable/disable, exposure", run: (*model).cmdMCP,
			enabled: func(m *model) bool { return m.opts.MCP != nil }},
		{name: "login", args: true, hint: "<provider>", desc: "Configure provider authentication", run: (*model).cmdLogin},
		{name: "logout", args: true, hint: "[provider]", desc: "Remove provider authentication", run: (*model).cmdLogout,
			enabled: func(m *model) bool { return m.opts.Logins != nil }},
		{name: "reload", desc: "Reload skills, prompts, settings and context files", run: (*model).cmdReload},
		{name: "quit", desc: "Quit pi", run: func(m *model, _ string) tea.Cmd { m.quit(); return nil }},
	}
}

// availableCommands are the commands this session supports.
func (m *model) availableCommands() []slashCommand {
	var out []slashCommand
	for _, c := range commands() {
		if c.enabled == nil || c.enabled(m) {
			out = append(out, c)
		}
	}
	return out
}

// runCommand runs text when it is a built-in command; ok is false for anything else (which pi sends
// to the model as an ordinary prompt).
func (m *model) runCommand(text string) (cmd tea.Cmd, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return nil, false
	}
	name, arg, hasArg := strings.Cut(text[1:], " ")
	for _, c := range m.availableCommands() {
		if c.name != name || hasArg && !c.args {
			continue
		}
		return c.run(m, strings.TrimSpace(arg)), true
	}
	return nil, false
}

// ---- /model, /thinking ----

func (m *model) modelCandidates() []*provider.Model {
	if scoped := m.sess.ScopedModels(); len(scoped) > 0 {
		out := make([]*provider.Model, 0, len(scoped))
		for _, s := range scoped {
			out = append(out, s.Model)
		}
		return out
	}
	return m.sess.AvailableModels()
}

func (m *model) cmdModel(arg string) tea.Cmd {
	if arg == "" {
		m.openModelSelector("")
		return nil
	}
	if mdl := provider.FindExactModelReference(arg, m.modelCandidates()); mdl != nil {
		m.setModel(mdl)
		return nil
	}
	m.openModelSelector(arg)
	return nil
}

func (m *model) setModel(mdl *provider.Model) {
	if err := m.sess.SetModel(mdl); err != nil {
		m.addError(err.Error())
		return
	}
	m.footerDirty = true
	m.addStatus("Model: " + mdl.ID)
}

func (m *model) cmdThinking(arg string) tea.Cmd {
	if arg == "" {
		m.openThinkingSelector()
		return nil
	}
	level, err := provider.ParseThinkingLevel(arg)
	if err != nil {
		m.addError(err.Error())
		return nil
	}
	m.setThinking(level)
	return nil
}

func (m *model) setThinking(level provider.ThinkingLevel) {
	if mdl := m.sess.Model(); mdl == nil || !mdl.Reasoning {
		m.addStatus("Current model does not support thinking")
		return
	}
	m.sess.SetThinkingLevel(level)
	m.footerDirty = true
	m.addStatus("Thinking level: " + string(m.sess.ThinkingLevel()))
}

// cycleThinking is Shift+Tab.
func (m *model) cycleThinking() {
	level, ok := m.sess.CycleThinkingLevel()
	if !ok {
		m.addStatus("Current model does not support thinking")
		return
	}
	m.footerDirty = true
	m.addStatus("Thinking level: " + string(level))
}

// cycleModel is Ctrl+P.
func (m *model) cycleModel() {
	res := m.sess.CycleModel(false)
	if res == nil {
		if len(m.sess.ScopedModels()) > 0 {
			m.addStatus("Only one model in scope")
		} else {
			m.addStatus("Only one model available")
		}
		return
	}
	m.footerDirty = true
	name := res.Model.Name
	if name == "" {
		name = res.Model.ID
	}
	thinking := ""
	if res.Model.Reasoning && res.ThinkingLevel != provider.ThinkingOff {
		thinking = " (thinking: " + string(res.ThinkingLevel) + ")"
	}
	m.addStatus("Switched to " + name + thinking)
}

// ---- sessions ----

func (m *model) cmdNew(string) tea.Cmd {
	sess := m.sess
	m.run = runState{}
	return m.sessionOp(func() error { return sess.NewSession("") }, (*model).showNewSession)
}

// showNewSession shows that a new session started (/new, an extension's ctx.newSession()).
func (m *model) showNewSession() {
	m.sessionReplaced()
	// A rule marks where the new session starts (pi clears its chat); the notice has the chat's
	// one-column margin.
	m.addSeparator()
	m.addFixed([]string{"", " " + m.r.Theme().Fg(theme.Accent, "✓ New session started")})
}

func (m *model) cmdClone(string) tea.Cmd {
	if m.sess.Store().LeafID() == "" {
		m.addStatus("Nothing to clone yet")
		return nil
	}
	sess := m.sess
	return m.sessionOp(sess.Clone, func(m *model) {
		m.ed.SetText("")
		m.addStatus("Cloned to new session")
	})
}

// sessionOp runs a session operation that may wait for a run to stop, then after on the UI goroutine.
func (m *model) sessionOp(fn func() error, after func(m *model)) tea.Cmd {
	return m.op(func() tea.Msg {
		err := fn()
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.sessionChanged()
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			after(m)
			return nil
		}}
	})
}

// sessionChanged forgets what belonged to the previous session's run.
func (m *model) sessionChanged() {
	m.steering, m.followUp = nil, nil
	m.endPendingTools("")
	m.footerDirty = true
}

// sessionReplaced forgets, once another session file is in use (a new, resumed or forked session),
// what was waiting for the previous one as pi does: the messages typed during its compaction and its
// `!` commands not recorded yet (the session dropped them); the title names the session now in use.
func (m *model) sessionReplaced() {
	m.compactionQueue = nil
	m.pendingBash = nil
	m.setTitle()
}

func (m *model) cmdName(arg string) tea.Cmd {
	if arg == "" {
		if name := m.sess.Store().SessionName(); name != "" {
			m.addBlock(func(w int) []string { return m.r.StatusNotice("Session name: "+name, w) })
		} else {
			m.addWarning("Usage: /name <name>")
		}
		return nil
	}
	if err := m.sess.SetSessionName(arg); err != nil {
		m.addError(err.Error())
		return nil
	}
	m.footerDirty = true
	text := "Session name set: " + strings.TrimSpace(arg)
	m.addBlock(func(w int) []string { return m.r.StatusNotice(text, w) })
	return m.setTitle()
}

func (m *model) cmdSession(string) tea.Cmd {
	st := m.sess.Stats()
	th := m.r.Theme()
	dim := func(s string) string { return th.Fg(theme.Dim, s) }
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	add(th.Bold("Session Info"))
	add("")
	if name := m.sess.Store().SessionName(); name != "" {
		add(dim("Name:") + " " + name)
	}
	file := st.SessionFile
	if file == "" {
		file = "In-memory"
	}
	add(dim("File:") + " " + file)
	add(dim("ID:") + " " + st.SessionID)
	add("")
	add(th.Bold("Messages"))
	add(dim("User:") + " " + itoa(st.UserMessages))
	add(dim("Assistant:") + " " + itoa(st.AssistantMessages))
	add(dim("Tool Calls:") + " " + itoa(st.ToolCalls))
	add(dim("Tool Results:") + " " + itoa(st.ToolResults))
	add(dim("Total:") + " " + itoa(st.TotalMessages))
	add("")
	add(th.Bold("Tokens"))
	add(dim("Input:") + " " + groupThousands(st.Tokens.Input))
	add(dim("Output:") + " " + groupThousands(st.Tokens.Output))
	if st.Tokens.CacheRead > 0 {
		add(dim("Cache Read:") + " " + groupThousands(st.Tokens.CacheRead))
	}
	if st.Tokens.CacheWrite > 0 {
		add(dim("Cache Write:") + " " + groupThousands(st.Tokens.CacheWrite))
	}
	add(dim("Total:") + " " + groupThousands(st.Tokens.Total))
	if st.Cost > 0 {
		add("")
		add(th.Bold("Cost"))
		add(dim("Total:") + " " + fmt.Sprintf("%.4f", st.Cost))
	}
	m.addBlock(func(w int) []string { return textBlock(lines, w) })
	return nil
}

// ---- /compact, /copy, /hotkeys ----

// cmdCompact summarises the history now; the compaction's events show its progress and outcome.
func (m *model) cmdCompact(arg string) tea.Cmd {
	messages := 0
	for _, e := range m.sess.Store().Entries() {
		if e.Type == session.TypeMessage {
			messages++
		}
	}
	if messages < 2 {
		m.addWarning("Nothing to compact (no messages yet)")
		return nil
	}
	m.compacted = false
	sess, ctx := m.sess, m.ctx
	return m.op(func() tea.Msg {
		_, err := sess.Compact(ctx, arg)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			// Errors after compaction_start arrive as its end event; the others (no model, already
			// compacted) only here.
			if err != nil && !m.compacted {
				m.addError(err.Error())
			}
			return nil
		}}
	})
}

func (m *model) cmdCopy(string) tea.Cmd {
	text, ok := m.sess.LastAssistantText()
	if !ok || text == "" {
		m.addError("No agent messages to copy yet.")
		return nil
	}
	m.scr.WriteSequence(osc52(text))
	m.addStatus("Copied last agent message to clipboard")
	return nil
}

func (m *model) cmdHotkeys(string) tea.Cmd {
	r, km, fullscreen := m.r, m.keys, m.fullscreen
	m.addBlock(func(w int) []string {
		th := r.Theme()
		rule := th.Fg(theme.Border, strings.Repeat("─", max(w, 1)))
		out := []string{"", rule, "  " + th.Style(theme.Accent, true, false, "Keyboard Shortcuts"), ""}
		for _, l := range hotkeysView(km, th, max(w-2, 1), fullscreen) {
			if l != "" {
				l = " " + l // the chat's left margin, as for an answer
			}
			out = append(out, l)
		}
		out = append(out, rule)
		return indentBlock(out, w)
	})
	return nil
}

// textBlock turns plain lines into a chat block: a spacer, then the lines indented by one column
// and wrapped to the width (a session file's path must stay whole to be copied).
func textBlock(lines []string, width int) []string {
	out := []string{""}
	for _, l := range lines {
		for _, w := range render.Wrap(l, max(width-1, 1)) {
			out = append(out, " "+w)
		}
	}
	return out
}

// indentBlock cuts every line to width (markdown from the renderer fits width-2; the rule fits width).
func indentBlock(lines []string, width int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = truncate(l, width)
	}
	return out
}

// groupThousands writes n as JavaScript's toLocaleString does in English: 12,345.
func groupThousands(n int) string {
	s := itoa(n)
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
