package tui

import (
	"bytes"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"time"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// handleEvent applies one session event to the model.
func (m *model) handleEvent(ev harness.Event) tea.Cmd {
	if ev.Agent != nil {
		m.handleAgentEvent(ev.Agent)
		if ev.Agent.Type == loop.EventAgentEnd {
			// A failed attempt that is retried, or the last of a retry chain, is told by the retry
			// status line and auto_retry_end: one line for the chain, not an error per attempt.
			m.settleHeldErrors(ev.WillRetry || m.run.attempt > 0)
		}
		return nil
	}
	switch ev.Type {
	case harness.EventAgentSettled:
		m.quitIfShutdownAsked()
	case harness.EventQueueUpdate:
		m.steering, m.followUp = ev.Steering, ev.FollowUp
	case harness.EventThinkingLevelChanged:
		m.footerDirty = true
	case harness.EventAutoRetryStart:
		m.run.retrying = true
		m.run.attempt, m.run.maxAttempts = ev.Attempt, ev.MaxAttempts
		m.run.retryUntil = time.Now().Add(time.Duration(ev.DelayMs) * time.Millisecond)
		m.run.retryReason = ev.ErrorMessage
	case harness.EventAutoRetryEnd:
		m.run.retrying = false
		m.run.attempt = 0
		reason := m.run.retryReason
		m.run.retryReason = ""
		if !ev.Success {
			final := ev.FinalError
			if final == "" {
				final = "Unknown error"
			}
			if final == "Retry cancelled" && reason != "" {
				// The failed attempts showed no error line of their own: say what went wrong.
				final += " (last error: " + reason + ")"
			}
			m.addError(fmt.Sprintf("Retry failed after %d attempts: %s", ev.Attempt, final))
		}
	case harness.EventCompactionStart:
		m.run.compacting = true
		m.run.compactionReason = ev.Reason
		m.run.compactStarted = time.Now()
	case harness.EventCompactionEnd:
		m.run.compacting = false
		m.compacted = true
		m.compactionEnded(ev)
		return m.flushCompactionQueue(ev.WillRetry)
	}
	return nil
}

// compactionEnded shows a compaction's outcome as pi does.
func (m *model) compactionEnded(ev harness.Event) {
	manual := ev.Reason == harness.CompactionManual
	switch {
	case ev.Aborted:
		if manual {
			m.addError("Compaction cancelled")
		} else {
			m.addStatus("Auto-compaction cancelled")
		}
	case ev.Result != nil:
		// The scrollback keeps the history as it was; the summary block marks where the context now
		// starts.
		msg := &provider.CompactionSummaryMessage{Summary: ev.Result.Summary, TokensBefore: ev.Result.TokensBefore}
		m.addBlock(func(w int) []string { return m.r.CompactionSummary(msg, m.expandTools, w) })
		m.footerDirty = true
	case ev.ErrorMessage != "":
		if manual {
			m.addError(ev.ErrorMessage)
		} else {
			text := ev.ErrorMessage
			m.addBlock(func(w int) []string { return m.r.ErrorText(text, w) })
		}
	}
}

func (m *model) handleAgentEvent(e *loop.Event) {
	switch e.Type {
	case loop.EventAgentStart:
		m.run.active = true
		m.run.turns = 0
		m.run.started = time.Now()
		m.run.retrying = false
		m.run.thinking = false
		m.run.prompting = false
	case loop.EventAgentEnd:
		m.run.turnPending = ""
		m.run.active = false
		m.run.thinking = false
		m.endPendingTools("")
		m.movePendingBash()
		m.footerDirty = true
		m.gitBranch = gitBranch(m.sess.Cwd())
	case loop.EventTurnStart:
		// A run of several turns (tool calls, steering, follow-ups) marks where each later one begins.
		// The rule is drawn with the turn's first visible block (turnShown): a turn aborted before it
		// showed anything leaves no empty header behind.
		m.run.turns++
		if m.run.turns > 1 {
			m.run.turnPending = "turn " + itoa(m.run.turns)
		}
	case loop.EventMessageStart:
		// A streaming answer keeps changing on the loop's goroutine: the TUI draws a copy of it.
		m.messageStart(e.MessageSnapshot())
	case loop.EventMessageUpdate:
		if a, ok := e.MessageSnapshot().(*provider.AssistantMessage); ok {
			m.assistantUpdate(a, false)
			if e.AssistantEvent != nil {
				switch e.AssistantEvent.Type {
				case provider.EventThinkingStart, provider.EventThinkingDelta:
					m.run.thinking = true
				case provider.EventThinkingEnd, provider.EventTextStart, provider.EventTextDelta,
					provider.EventToolCallStart, provider.EventToolCallDelta:
					m.run.thinking = false
				}
			}
		}
	case loop.EventMessageEnd:
		if a, ok := e.Message.(*provider.AssistantMessage); ok {
			m.assistantUpdate(a, true)
			m.run.thinking = false
			m.footerDirty = true
		}
	case loop.EventToolExecutionStart:
		it := m.toolItem(e.ToolCallID, e.ToolName, e.Args)
		it.tool.Status = render.ToolRunning
		it.toolStart = time.Now()
		m.extToolChanged(it)
	case loop.EventToolExecutionUpdate:
		if it := m.tools[e.ToolCallID]; it != nil {
			it.tool.Result = e.Result
			m.extToolChanged(it)
		}
	case loop.EventToolExecutionEnd:
		it := m.toolItem(e.ToolCallID, e.ToolName, nil)
		it.tool.Status = render.ToolDone
		it.tool.Result = e.Result
		it.tool.IsError = e.IsError
		if !it.toolStart.IsZero() {
			it.tool.Elapsed = time.Since(it.toolStart)
		}
		it.final = true
		delete(m.tools, e.ToolCallID)
		m.extToolChanged(it)
	}
}

// messageStart adds a prompt, a steering or follow-up message, a custom message or a new assistant
// message to the chat.
func (m *model) messageStart(msg provider.Message) {
	switch msg := msg.(type) {
	case *provider.UserMessage:
		m.run.attempt = 0
		if len(msg.Content) > 0 {
			m.turnShown(nil)
			// Drawn as a resumed prompt is (blockLines), images included.
			m.chat = append(m.chat, &chatItem{kind: chatLines, msg: msg, prompt: true})
		}
	case *provider.CustomMessage:
		m.turnShown(nil)
		m.addCustomMessage(msg)
	case *provider.AssistantMessage:
		it := &chatItem{kind: chatAssistant,
			stream: m.r.NewAssistantStream(render.AssistantOptions{HideThinking: m.hideThinking,
				ThinkingLabel: m.ext.thinkingLabel})}
		it.stream.Update(msg)
		m.chat = append(m.chat, it)
	}
}

// assistantUpdate gives the streaming message its newest snapshot and creates a tool block for
// every tool call that appeared in it; final is message_end.
func (m *model) assistantUpdate(a *provider.AssistantMessage, final bool) {
	it := m.streaming()
	if it == nil {
		// An update without message_start (should not happen): show it anyway.
		m.messageStart(a)
		it = m.streaming()
	}
	if final && a.StopReason == provider.StopReasonAborted && m.run.attempt > 0 {
		// pi says how far the retries got when one is aborted.
		shown := *a
		shown.ErrorMessage = fmt.Sprintf("Aborted after %d retry attempt", m.run.attempt)
		if m.run.attempt > 1 {
			shown.ErrorMessage += "s"
		}
		a = &shown
	}
	if final {
		it.stream.Finish(a)
		if a.StopReason == provider.StopReasonError {
			// Held until agent_end says whether a retry follows (settleHeldErrors).
			it.stream.HoldError()
		}
	} else {
		it.stream.Update(a)
	}
	if m.run.turnPending != "" && len(it.stream.Lines(m.width)) > 0 {
		m.turnShown(it)
	}
	for _, c := range a.Content {
		if c.Type != provider.ContentToolCall {
			continue
		}
		t := m.toolItem(c.ID, c.Name, c.Arguments)
		if t.tool.Status == render.ToolPending && (t.extTool == nil || !bytes.Equal(t.tool.Args, c.Arguments)) {
			t.tool.Args = c.Arguments
			m.extToolChanged(t)
		}
	}
	if final && (a.StopReason == provider.StopReasonAborted || a.StopReason == provider.StopReasonError) {
		text := "Operation aborted"
		if m.run.attempt > 0 && a.StopReason == provider.StopReasonAborted {
			text = a.ErrorMessage
		}
		if a.StopReason == provider.StopReasonError {
			text = a.ErrorMessage
			if text == "" {
				text = "Error"
			}
		}
		m.endPendingTools(text)
	}
}

// settleHeldErrors drops (a retry tells it) or shows the error lines held back at message_end.
func (m *model) settleHeldErrors(drop bool) {
	for _, it := range m.chat {
		if it.kind != chatAssistant || !it.stream.ErrorHeld() {
			continue
		}
		if drop {
			it.stream.DropError()
		} else {
			it.stream.ReleaseError()
		}
	}
}

// streaming is the assistant message being streamed, if any.
func (m *model) streaming() *chatItem {
	for i := len(m.chat) - 1; i >= 0; i-- {
		if it := m.chat[i]; it.kind == chatAssistant && !it.stream.Done() {
			return it
		}
	}
	return nil
}

// toolItem finds or creates the block of a tool call.
func (m *model) toolItem(id, name string, args []byte) *chatItem {
	if it := m.tools[id]; it != nil {
		return it
	}
	m.turnShown(nil)
	it := &chatItem{kind: chatTool, tool: render.ToolView{Name: name, Args: args, Status: render.ToolPending,
		Expanded: m.expandTools}, extTool: m.extToolFor(id, name)}
	m.tools[id] = it
	m.chat = append(m.chat, it)
	return it
}

// endPendingTools gives every tool block still waiting an error result (the message ended in an
// error or abort, or the run ended without running them).
func (m *model) endPendingTools(text string) {
	for id, it := range m.tools {
		if text != "" {
			it.tool.Result = &loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
			it.tool.IsError = true
		}
		it.tool.Status = render.ToolDone
		it.final = true
		delete(m.tools, id)
		m.extToolChanged(it)
	}
}

// movePendingBash moves the `!` commands run during the agent's run into the chat, where the session
// has just recorded them.
func (m *model) movePendingBash() {
	if len(m.pendingBash) == 0 {
		return
	}
	m.chat = append(m.chat, m.pendingBash...)
	m.pendingBash = nil
}

// turnShown draws the pending rule of a new turn, before the block before (nil: at the end), once
// the turn has something to show.
func (m *model) turnShown(before *chatItem) {
	label := m.run.turnPending
	if label == "" {
		return
	}
	m.run.turnPending = ""
	sep := &chatItem{kind: chatLines, draw: func(w int) []string { return m.r.TurnSeparator(label, w) }}
	for i, it := range m.chat {
		if it == before {
			m.chat = append(m.chat[:i], append([]*chatItem{sep}, m.chat[i:]...)...)
			return
		}
	}
	m.chat = append(m.chat, sep)
}
