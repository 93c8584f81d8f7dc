package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// queuedText is a message typed during a compaction, sent when it ends (pi keeps these in the UI).
type queuedText struct {
	text     string
	followUp bool
}

// submit handles Enter (followUp false) and Alt+Enter during a run (followUp true): a command, a
// `!` command, or a message: a new prompt when idle, a steering message or follow-up during a run.
func (m *model) submit(followUp bool) tea.Cmd {
	e := m.ed
	if !followUp && strings.HasSuffix(e.TextBeforeCursor(), "\\") {
		// pi's fallback for terminals that cannot send Shift+Enter: backslash-Enter is a newline.
		e.Backspace()
		e.Newline()
		return nil
	}
	text := strings.TrimSpace(e.ExpandedText())
	if text == "" {
		return nil
	}
	m.comp.close()
	if !followUp {
		if cmd, ok := m.runCommand(text); ok {
			e.Clear()
			return cmd
		}
	}
	if strings.HasPrefix(text, "!") {
		excluded := strings.HasPrefix(text, "!!")
		command := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "!"), "!"))
		if command != "" {
			if m.sess.IsBashRunning() {
				m.addWarning(harness.ErrBashRunning.Error())
				return nil
			}
			e.AddToHistory(text)
			e.Clear()
			return m.runBash(command, excluded)
		}
	}
	e.AddToHistory(text)
	e.Clear()
	if m.sess.IsCompacting() {
		m.compactionQueue = append(m.compactionQueue, queuedText{text: text, followUp: followUp})
		m.addStatus("Queued message for after compaction")
		return nil
	}
	if m.busy() {
		behavior := harness.BehaviorSteer
		if followUp {
			behavior = harness.BehaviorFollowUp
		}
		return m.prompt(text, m.takePastedImages(text), behavior, true)
	}
	return m.prompt(text, m.takePastedImages(text), harness.BehaviorSteer, false)
}

// prompt sends a message off the UI goroutine (Prompt returns when the run has settled). queued says
// a run is active and the message only joins a queue. A new prompt passes BehaviorSteer too: should
// a run have started in between (an initial message), the text is queued instead of refused.
func (m *model) prompt(text string, images []provider.Content, b harness.StreamingBehavior, queued bool) tea.Cmd {
	if !queued {
		m.run.prompting = true
		m.run.started = time.Now()
	}
	sess, ctx := m.sess, m.ctx
	return m.op(func() tea.Msg {
		err := sess.Prompt(ctx, text, images, b)
		return promptDoneMsg{err: err, queued: queued}
	})
}

// sendNextInitial sends the next positional prompt (they go one after another, as in pi).
func (m *model) sendNextInitial() tea.Cmd {
	if len(m.initial) == 0 {
		return nil
	}
	text := m.initial[0]
	m.initial = m.initial[1:]
	var images []provider.Content
	if m.initialImages {
		images, m.initialImages = m.opts.InitialImages, false
	}
	return m.prompt(text, images, harness.BehaviorSteer, false)
}

// ---- compaction queue ----

// takeCompactionQueue empties the messages queued during a compaction and returns their texts.
func (m *model) takeCompactionQueue() []string {
	var out []string
	for _, q := range m.compactionQueue {
		out = append(out, q.text)
	}
	m.compactionQueue = nil
	return out
}

// flushCompactionQueue sends what was typed during a compaction: the first message as a prompt and
// the rest queued behind it, or everything queued when a retry follows.
func (m *model) flushCompactionQueue(willRetry bool) tea.Cmd {
	queue := m.compactionQueue
	m.compactionQueue = nil
	if len(queue) == 0 {
		return nil
	}
	var cmds []tea.Cmd
	start := 0
	if !willRetry && !m.busy() {
		cmds = append(cmds, m.prompt(queue[0].text, nil, harness.BehaviorSteer, false))
		start = 1
	}
	for _, q := range queue[start:] {
		// Through the input pipeline, so a template typed during the compaction expands.
		if _, err := m.sess.QueueInput(m.ctx, q.text, nil, q.followUp, harness.SourceInteractive); err != nil {
			m.addError(err.Error())
		}
	}
	return tea.Batch(cmds...)
}

// ---- `!` commands ----

// runBash runs a `!` command with its output shown live. Started during a run, its block waits under
// the chat until the run ends (the session records it then).
func (m *model) runBash(command string, excluded bool) tea.Cmd {
	m.bashSeq++
	id := m.bashSeq
	it := &chatItem{kind: chatBash, bashID: id,
		bash: render.BashView{Command: command, Running: true, ExcludeFromContext: excluded, Expanded: m.expandTools}}
	if m.busy() {
		m.pendingBash = append(m.pendingBash, it)
	} else {
		m.chat = append(m.chat, it)
	}
	m.bashRunning = it
	sess, ctx, in := m.sess, m.ctx, m.in
	return m.op(func() tea.Msg {
		res, err := sess.ExecuteBash(ctx, command, excluded, func(chunk string) {
			in.pushMsg(bashChunkMsg{id: id, text: chunk})
		})
		return bashDoneMsg{id: id, result: res, err: err}
	})
}

func (m *model) bashItem(id int) *chatItem {
	if m.bashRunning != nil && m.bashRunning.bashID == id {
		return m.bashRunning
	}
	return nil
}

func (m *model) bashDone(msg bashDoneMsg) {
	it := m.bashItem(msg.id)
	if it == nil {
		return
	}
	m.bashRunning = nil
	it.final = true
	it.bash.Running = false
	if msg.err != nil {
		m.addError("Bash command failed: " + msg.err.Error())
		return
	}
	r := msg.result
	it.bash.Output = r.Output
	it.bash.ExitCode = r.ExitCode
	it.bash.Cancelled = r.Cancelled
	it.bash.Truncated = r.Truncated
	it.bash.FullOutputPath = r.FullOutputPath
}

// ---- toggles ----

// toggleExpand is Ctrl+O: tool output, summaries and `!` output are shown in full (or collapsed),
// in the whole transcript: it is drawn again (relayout).
func (m *model) toggleExpand() {
	m.expandTools = !m.expandTools
	if m.expandTools {
		m.addStatus("Tool output: expanded")
	} else {
		m.addStatus("Tool output: collapsed")
	}
	m.toggled()
}

// toggleThinking is Ctrl+T: thinking blocks are shown or collapsed to one line in the whole transcript
// (saved in settings as pi does).
func (m *model) toggleThinking() {
	m.hideThinking = !m.hideThinking
	if m.opts.Settings != nil {
		if err := m.opts.Settings.Set("hideThinkingBlock", m.hideThinking); err != nil {
			m.addWarning(err.Error())
		}
	}
	if m.hideThinking {
		m.addStatus("Thinking blocks: hidden")
	} else {
		m.addStatus("Thinking blocks: visible")
	}
	m.toggled()
}
