package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// NewSession aborts whatever runs and starts an empty session in the same session directory (/new,
// RPC new_session), which records its model and thinking level as any new session does. The old file
// is left as it is.
func (s *Session) NewSession(parentSession string) error {
	if err := s.guardSessionChange("session_before_switch", map[string]any{"reason": "new"}); err != nil {
		return err
	}
	s.Abort()
	store := s.Store()
	previous := store.SessionFile()
	defer s.sessionChanged("new", previous)
	if _, err := store.NewSession(session.NewSessionOptions{ParentSession: parentSession}); err != nil {
		return fmt.Errorf("new session: %w", err)
	}
	s.agent.Reset()
	s.clearDisplayQueues()
	s.agent.SetSessionID(store.SessionID())
	return s.adoptStore()
}

// SwitchSession aborts whatever runs and opens another session file (/resume, RPC switch_session): its
// transcript, model and thinking level are restored (a model or level named on the command line wins,
// as in pi).
func (s *Session) SwitchSession(path string) error {
	if err := s.guardSessionChange("session_before_switch", map[string]any{"reason": "resume", "targetSessionFile": path}); err != nil {
		return err
	}
	s.Abort()
	defer s.sessionChanged("resume", s.Store().SessionFile())
	if cur := s.Store(); sameFile(cur.SessionFile(), path) {
		// Re-opening the session's own file (pi allows it, to reload): its lock must go first.
		if err := cur.Close(); err != nil {
			s.warn(fmt.Errorf("closing the session before re-opening it: %w", err))
		}
	}
	next, err := session.Open(path, session.OpenOptions{SessionDir: s.Store().SessionDir()})
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.store
	s.store = next
	s.mu.Unlock()
	if err := old.Close(); err != nil {
		s.warn(fmt.Errorf("closing the previous session: %w", err))
	}
	s.agent.Reset()
	s.clearDisplayQueues()
	s.agent.SetSessionID(next.SessionID())
	return s.adoptStore()
}

// Fork starts a new session that continues from just before the user message entryID (/fork, RPC
// fork). It returns the text of that message so the user can edit and resend it.
func (s *Session) Fork(entryID string) (string, error) {
	store := s.Store()
	e := store.Entry(entryID)
	if e == nil || e.Type != session.TypeMessage || e.Role != provider.RoleUser {
		return "", errors.New("Invalid entry ID for forking")
	}
	if err := s.guardSessionChange("session_before_fork", map[string]any{"entryId": entryID, "position": "before"}); err != nil {
		return "", err
	}
	s.Abort()
	defer s.sessionChanged("fork", store.SessionFile())
	res, err := store.Fork(entryID)
	if err != nil {
		return "", err
	}
	s.agent.SetSessionID(store.SessionID())
	s.clearDisplayQueues()
	if err := s.adoptStore(); err != nil {
		return "", err
	}
	return res.SelectedText, nil
}

// Clone copies the active branch into a new session and continues there (/clone, RPC clone).
func (s *Session) Clone() error {
	s.Abort()
	store := s.Store()
	if _, err := store.Clone(); err != nil {
		return err
	}
	s.agent.SetSessionID(store.SessionID())
	s.clearDisplayQueues()
	return s.adoptStore()
}

// clearDisplayQueues drops what was queued for the previous session, as pi does by building a fresh
// agent for the next one. queue_update is emitted only when something was queued: pi emits none, and
// an empty update would say nothing new.
// sameFile reports whether two paths name the same existing file (or the same path when either is
// missing).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil {
		absA, _ := filepath.Abs(a)
		absB, _ := filepath.Abs(b)
		return absA == absB
	}
	return os.SameFile(ia, ib)
}

func (s *Session) clearDisplayQueues() {
	steering, followUp := s.agent.ClearAllQueues()
	s.mu.Lock()
	had := len(s.steeringTexts)+len(s.followUpTexts)+len(steering)+len(followUp) > 0
	s.steeringTexts, s.followUpTexts = nil, nil
	s.pendingBash = nil
	s.retryAttempt = 0
	s.overflowTried = false
	s.mu.Unlock()
	if had {
		s.emitQueueUpdate()
	}
}

// ForkMessage is a user message one can fork from.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// ForkMessages lists the user messages that have text, of every branch in file order, as pi 0.73.1
// and 1.6 do (getUserMessagesForForking reads all entries).
func (s *Session) ForkMessages() []ForkMessage {
	var out []ForkMessage
	for _, e := range s.Store().Entries() { // every branch, in file order, as pi lists them
		if e.Type != session.TypeMessage || e.Role != provider.RoleUser {
			continue
		}
		m, err := e.Message()
		if err != nil {
			continue
		}
		if u, ok := m.(*provider.UserMessage); ok {
			if text := provider.TextOf(u.Content, ""); text != "" {
				out = append(out, ForkMessage{EntryID: e.ID, Text: text})
			}
		}
	}
	return out
}

// SetSessionName names the session (a session_info entry); the name is trimmed and must not be empty.
func (s *Session) SetSessionName(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("Session name cannot be empty")
	}
	_, err := s.Store().AppendSessionInfo(name)
	return err
}

// Stats is pi's get_session_stats result.
type Stats struct {
	SessionFile       string        `json:"sessionFile,omitempty"`
	SessionID         string        `json:"sessionId"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenTotals   `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// TokenTotals sums what the session was billed (see session.Manager.TotalUsage).
type TokenTotals struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// Stats counts messages and tool calls over every message entry of the session file, all branches
// and what compactions summarised included, and sums tokens and cost as pi 1.6 does: assistant
// messages, tool results that report usage, usage entries, compaction and branch summaries (0.73.1
// counted the transcript's assistant messages only). A message that cannot be read back counts
// without its tool calls.
func (s *Session) Stats() Stats {
	store := s.Store()
	st := Stats{SessionFile: store.SessionFile(), SessionID: store.SessionID()}
	var total provider.Usage
	for _, e := range store.Entries() {
		if u, ok := e.Usage(); ok {
			total.Add(u)
		}
		if e.Type != session.TypeMessage {
			continue
		}
		st.TotalMessages++
		switch e.Role {
		case provider.RoleUser:
			st.UserMessages++
		case provider.RoleToolResult:
			st.ToolResults++
		case provider.RoleAssistant:
			st.AssistantMessages++
			m, err := e.Message()
			if a, ok := m.(*provider.AssistantMessage); ok && err == nil {
				st.ToolCalls += len(a.ToolCalls())
			}
		}
	}
	st.Tokens = TokenTotals{Input: total.Input, Output: total.Output, CacheRead: total.CacheRead, CacheWrite: total.CacheWrite,
		Total: total.Input + total.Output + total.CacheRead + total.CacheWrite}
	st.Cost = total.Cost.Total
	if u, ok := s.ContextUsage(); ok {
		st.ContextUsage = &u
	}
	return st
}

// SessionTotals sums what the session was billed (all branches, before compactions too), as pi 1.6's
// footer does: see session.Manager.TotalUsage.
func (s *Session) SessionTotals() (provider.Usage, error) {
	return s.Store().TotalUsage(), nil
}
