package tui

import (
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// printHeader prints the header, the demo banner and the startup warnings.
func (m *model) printHeader() {
	if !m.settings().QuietStartup.HidesHeader() || m.opts.Demo {
		info := render.HeaderInfo{Version: m.opts.Version, Demo: m.opts.Demo, DemoHint: m.opts.DemoHint}
		m.ext.headerItem = m.addBlock(func(w int) []string {
			if lines, ok := m.extHeader(w); ok {
				return lines
			}
			return m.r.Header(info, w)
		})
	}
	for _, w := range m.opts.Warnings {
		m.addWarning(w)
	}
}

// syncHistoryMax is the longest conversation printed before the first frame; a longer one is
// rendered off the UI goroutine (10,000 messages take about a second) while the editor is usable.
const syncHistoryMax = 300

// historyMsg delivers a conversation rendered off the UI goroutine for its placeholder in the chat.
type historyMsg struct {
	item  *chatItem
	items []*chatItem
}

// historyItems makes one block per message of msgs (tool results belong to their calls' blocks).
func historyItems(msgs []provider.Message) []*chatItem {
	results := make(map[string]*provider.ToolResultMessage)
	for _, msg := range msgs {
		if tr, ok := msg.(*provider.ToolResultMessage); ok {
			results[tr.ToolCallID] = tr
		}
	}
	items := make([]*chatItem, 0, len(msgs))
	for _, msg := range msgs {
		if _, ok := msg.(*provider.ToolResultMessage); ok {
			continue
		}
		_, prompt := msg.(*provider.UserMessage)
		items = append(items, &chatItem{kind: chatLines, msg: msg, results: results, prompt: prompt, restored: true})
	}
	return items
}

// printHistory prints the session's conversation (a resumed session, a switch, a tree navigation)
// and, for a compacted session, how often it was compacted. A long conversation is rendered in the
// background: a placeholder holds its place, so nothing printed later can overtake it.
func (m *model) printHistory() tea.Cmd { return m.printHistoryOf(m.sess.Messages()) }

// printHistoryOf prints msgs, the session's messages taken when it changed.
func (m *model) printHistoryOf(msgs []provider.Message) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case len(msgs) > syncHistoryMax:
		count := itoa(len(msgs))
		it := &chatItem{kind: chatPending, draw: func(w int) []string { return m.r.StatusNotice("Loading "+count+" messages...", w) }}
		m.chat = append(m.chat, it)
		r, width, gen, opts := m.r, m.width, m.layoutGen, m.transcriptOptions()
		cmd = m.op(func() tea.Msg {
			items := historyItems(msgs)
			for _, h := range items {
				h.cache, h.cacheWidth, h.cacheGen = r.Message(h.msg, h.results, opts, width), width, gen
			}
			return historyMsg{item: it, items: items}
		})
	case len(msgs) > 0:
		items := historyItems(msgs)
		if m.mdx != nil {
			m.mdxEntryRefs(items)
		}
		m.chat = append(m.chat, items...)
	}
	for _, msg := range msgs {
		if text := userPromptText(msg); text != "" {
			m.ed.AddToHistory(text)
		}
	}
	compactions := 0
	for _, e := range m.sess.Store().Entries() {
		if e.Type == session.TypeCompaction {
			compactions++
		}
	}
	switch {
	case compactions == 1:
		m.addStatus("Session compacted 1 time")
	case compactions > 1:
		m.addStatus("Session compacted " + itoa(compactions) + " times")
	}
	m.footerDirty = true
	return cmd
}

// gitBranch is the branch checked out in dir's repository ("" outside one; "detached" for a
// detached HEAD), read from .git/HEAD as pi's footer does.
func gitBranch(dir string) string {
	for d := dir; ; {
		gitPath := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			head := filepath.Join(gitPath, "HEAD")
			if !fi.IsDir() {
				// A worktree or submodule: .git is a file "gitdir: <path>".
				data, err := os.ReadFile(gitPath)
				if err != nil {
					return ""
				}
				gd := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
				if !filepath.IsAbs(gd) {
					gd = filepath.Join(d, gd)
				}
				head = filepath.Join(gd, "HEAD")
			}
			data, err := os.ReadFile(head)
			if err != nil {
				return ""
			}
			s := strings.TrimSpace(string(data))
			if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return ref
			}
			return "detached"
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
