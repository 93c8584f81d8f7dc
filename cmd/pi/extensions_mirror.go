package main

import (
	"encoding/json"
	"sync"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
)

// sessionMirror feeds the sidecar's ctx.sessionManager when the session has no file (--no-session):
// before each message to the sidecar it hands over the entries appended since the last one, so an
// extension reading the session (auto-commit-on-exit's last answer at session_shutdown) sees it as
// pi's in-memory SessionManager would. Only deltas travel; a session with a file costs one check.
type sessionMirror struct {
	mu   sync.Mutex
	id   string // the session the sidecar has ("" none)
	sent int    // how many of its entries
	leaf string
}

// delta is extensions.Config.SessionEntries for s, the session bound (nil: none yet).
func (m *sessionMirror) delta(s *harness.Session) *extensions.SessionEntries {
	if s == nil {
		return nil
	}
	store := s.Store()
	m.mu.Lock()
	defer m.mu.Unlock()
	if store == nil || store.IsPersisted() {
		m.id = "" // a later in-memory session starts over
		return nil
	}
	var out extensions.SessionEntries
	if h := store.Header(); h.ID != m.id {
		m.id, m.sent, m.leaf = h.ID, 0, ""
		out.Header = h.Line()
	}
	entries := store.EntriesFrom(m.sent)
	leaf := store.LeafID()
	if out.Header == nil && len(entries) == 0 && leaf == m.leaf {
		return nil
	}
	for _, e := range entries {
		line, err := e.Raw()
		if err != nil {
			break // sent with the next message, once readable
		}
		out.Entries = append(out.Entries, json.RawMessage(line))
		m.sent++
	}
	m.leaf = leaf
	out.LeafID = leaf
	return &out
}
