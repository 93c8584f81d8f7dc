package session

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// validID is pi 1.6's rule for a session id given on the command line (assertValidSessionId).
var validID = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// ValidID reports whether id may name a session (--session-id): letters, digits, '.', '_' and '-',
// starting and ending with a letter or digit.
func ValidID(id string) bool { return validID.MatchString(id) }

// CreateWithID starts a new session like Create, with the given id (--session-id).
func CreateWithID(cwd, dir, id string) (*Manager, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("invalid session id %q", id)
	}
	m := newManager(cwd, dir, true)
	m.resetLocked(NewSessionOptions{ID: id})
	return m, nil
}

// InMemoryWithID is InMemory with the given id (--no-session --session-id).
func InMemoryWithID(cwd, id string) *Manager {
	m := newManager(cwd, "", false)
	m.resetLocked(NewSessionOptions{ID: id})
	return m
}

// FindByID returns the session file in dir whose header has exactly id, as pi 1.6's findById does:
// files named for the id are tried first, then every other session file's header. "" when none has it.
func FindByID(dir, id string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var named, others []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		if strings.HasSuffix(name, "_"+id+".jsonl") {
			named = append(named, name)
		} else {
			others = append(others, name)
		}
	}
	sort.Strings(named)
	for _, name := range append(named, others...) {
		path := filepath.Join(dir, name)
		if h, err := readHeader(path); err == nil && h.ID == id {
			return path
		}
	}
	return ""
}

// IsFresh reports whether the session has nothing yet but, perhaps, its name (--name writes the name
// before the session starts): it is started, not resumed.
func (m *Manager) IsFresh() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if e.Type != TypeSessionInfo {
			return false
		}
	}
	return true
}
