package mcp

import "strings"

// describeProblem is a server's line in the attention report ("" when it needs none): pi's short
// state of a server that needs sign-in or failed, with the first line of the failure.
func describeProblem(st Status) string {
	if !st.Server.Config.Enabled {
		return ""
	}
	switch st.State {
	case StateNeedsAuth:
		return st.Server.Name + ": needs sign-in"
	case StateFailed:
		msg := st.Error
		if msg == "" {
			msg = "unknown error"
		}
		first, _, _ := strings.Cut(msg, "\n")
		return st.Server.Name + ": failed: " + first
	}
	return ""
}

// AttentionReport is pi's report of the servers that need the user, once their connections
// settled: "MCP servers need attention:", a line per server that needs sign-in or failed, and
// "Run /mcp to fix."; "" when none does.
func AttentionReport(statuses []Status) string {
	var lines []string
	for _, st := range statuses {
		if line := describeProblem(st); line != "" {
			lines = append(lines, "  "+line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "MCP servers need attention:\n" + strings.Join(lines, "\n") + "\nRun /mcp to fix."
}

// ReportWhenSettled hands report the attention report, if there is one, once the servers were
// started (Start, which it does not call: the TUI starts them after its first frame) and their
// connections settled, as pi reports the problems once after startup. The goroutine is the
// manager's: Close ends it.
func (m *Manager) ReportWhenSettled(report func(string)) {
	m.mu.Lock()
	if m.ctx.Err() != nil {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		select {
		case <-m.startedCh:
		case <-m.ctx.Done():
			return
		}
		m.Wait(m.ctx)
		if m.ctx.Err() != nil {
			return
		}
		if text := AttentionReport(m.Statuses()); text != "" {
			report(text)
		}
	}()
}
