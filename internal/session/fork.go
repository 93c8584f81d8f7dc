package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-go/pi-go/internal/provider"
)

// materialize returns a copy of e that carries its own line bytes, so it can be written to another
// file. The decoded message (if any) is shared.
func materialize(e *Entry) (*Entry, error) {
	line, err := e.Raw()
	if err != nil {
		return nil, err
	}
	c := *e
	c.loc = newLoc(location{line: bytes.Clone(line)})
	return &c, nil
}

// CreateBranchedSession turns this session into a new one holding only the path from the root to
// leafID ("" means the current leaf), with the labels of that path re-created as label entries at
// its end, and parentSession pointing to the old file (pi's createBranchedSession; used by fork and
// clone). The old file is flushed, released and otherwise untouched. The new file is written at once
// when the path holds a user or assistant message, else when the first one arrives. It returns
// the new file's path ("" for an in-memory session).
func (m *Manager) CreateBranchedSession(leafID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	path := m.pathLocked(leafID)
	if len(path) == 0 {
		return "", notFound(leafID)
	}
	var entries []*Entry
	ids := map[string]bool{}
	for _, e := range path {
		if e.Type == TypeLabel {
			continue // re-created below from the resolved labels
		}
		c, err := materialize(e)
		if err != nil {
			return "", fmt.Errorf("fork: %w", err)
		}
		entries = append(entries, c)
		ids[e.ID] = true
	}
	parent := ""
	if len(entries) > 0 {
		parent = entries[len(entries)-1].ID
	}
	for _, target := range m.labels.ordered() {
		if !ids[target] {
			continue
		}
		st, _ := m.labels.get(target)
		e := &Entry{Type: TypeLabel, ID: newEntryID(func(id string) bool { return ids[id] }), ParentID: parent,
			Timestamp: st.timestamp, entryFields: &entryFields{TargetID: target, Label: st.label}}
		line, err := e.encode()
		if err != nil {
			return "", err
		}
		e.loc = newLoc(location{line: line})
		ids[e.ID] = true
		entries = append(entries, e)
		parent = e.ID
	}
	oldPath := m.path
	err := m.releaseLocked()
	parentSession := ""
	if m.persist {
		parentSession = oldPath
	}
	m.resetLocked(NewSessionOptions{ParentSession: parentSession})
	m.entries = entries
	m.buildIndexLocked()
	if m.persist && m.hasConversation {
		if ferr := m.flushLocked(); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}
	return m.path, err
}

// Clone copies the active branch (root to leaf) into a new session (RPC clone, /clone).
func (m *Manager) Clone() (string, error) {
	leaf := m.LeafID()
	if leaf == "" {
		return "", errors.New("nothing to clone: the session has no entries")
	}
	return m.CreateBranchedSession(leaf)
}

// ForkResult is what Fork returns: the text of the user message forked from (for the editor) and the
// new session's file.
type ForkResult struct {
	SelectedText string
	Path         string
}

// Fork starts a new session that continues from just before a user message (pi's fork with position
// "before"): the new session holds the path up to that message's parent; forking at a first message
// gives an empty session. The user message's text is returned for re-submission.
func (m *Manager) Fork(entryID string) (ForkResult, error) {
	e := m.Entry(entryID)
	if e == nil || e.Type != TypeMessage || e.Role != provider.RoleUser {
		return ForkResult{}, errors.New("Invalid entry ID for forking") //nolint:staticcheck // pi's text
	}
	msg, err := e.Message()
	if err != nil {
		return ForkResult{}, err
	}
	var res ForkResult
	if um, ok := msg.(*provider.UserMessage); ok {
		res.SelectedText = provider.TextOf(um.Content, "")
	}
	if e.ParentID == "" {
		parent := m.SessionFile()
		res.Path, err = m.NewSession(NewSessionOptions{ParentSession: parent})
		return res, err
	}
	res.Path, err = m.CreateBranchedSession(e.ParentID)
	return res, err
}

// ForkFrom copies a session (of any project) into a new session of targetCwd in dir, with
// parentSession pointing to the source, and writes it at once (--fork, and --session with a session
// of another project). The source is only read; it may be in use by another process.
func ForkFrom(sourcePath, targetCwd, dir string) (*Manager, error) {
	return ForkFromWithID(sourcePath, targetCwd, dir, "")
}

// ForkFromWithID is ForkFrom giving the new session id (--fork with --session-id; "" for a new one).
func ForkFromWithID(sourcePath, targetCwd, dir, id string) (*Manager, error) {
	abs, err := filepath.Abs(sourcePath)
	if err != nil {
		return nil, err
	}
	l, err := readUnlocked(abs)
	if err != nil {
		return nil, fmt.Errorf("Cannot fork: %w", err) //nolint:staticcheck // pi's text
	}
	if !l.hasHeader {
		return nil, fmt.Errorf("Cannot fork: source session file is empty or invalid: %s", abs) //nolint:staticcheck // pi's text
	}
	m := newManager(targetCwd, dir, true)
	m.resetLocked(NewSessionOptions{ID: id, ParentSession: abs})
	m.entries = l.entries
	m.warnings = l.warnings
	m.buildIndexLocked()
	if err := m.flushLocked(); err != nil {
		return nil, err
	}
	return m, nil
}

// readUnlocked loads a file for reading only (no lock, no repair), migrating an old version in memory.
// Every line is kept in memory.
func readUnlocked(path string) (*loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	l, err := load(f, st.Size(), path, nil)
	if errors.Is(err, errOldVersion) {
		data := make([]byte, st.Size())
		if _, err := f.ReadAt(data, 0); err != nil {
			return nil, err
		}
		lines := bytes.Split(data, []byte{'\n'})
		migrated, merr := migrateLines(lines)
		if merr != nil {
			return nil, merr
		}
		joined := bytes.Join(migrated, []byte{'\n'})
		l, err = load(bytes.NewReader(joined), int64(len(joined)), path, nil)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}
