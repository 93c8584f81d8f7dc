package export

import (
	"github.com/pi-go/pi-go/internal/session"
)

// Source is the session to export: its header, every entry in file order, and the leaf of the
// active branch. Entries are read lazily (session.Entry keeps message bytes on disk).
type Source struct {
	Header  session.Header
	Entries []*session.Entry
	LeafID  string
	// File is the session file's path ("" for a session never written); it names the default output.
	File string
}

// FromManager takes the Source of a session store as it is now.
func FromManager(m *session.Manager) Source {
	return Source{Header: m.Header(), Entries: m.Entries(), LeafID: m.LeafID(), File: m.SessionFile()}
}

// branch returns the entries from the root to the leaf, in order (the active branch).
func (s Source) branch() []*session.Entry {
	byID := make(map[string]*session.Entry, len(s.Entries))
	for _, e := range s.Entries {
		byID[e.ID] = e
	}
	leaf := byID[s.LeafID]
	if leaf == nil && s.LeafID != "" && len(s.Entries) > 0 {
		// The leaf was appended after the entries were taken (an export while the agent works):
		// the branch ends at the newest entry taken.
		leaf = s.Entries[len(s.Entries)-1]
	}
	var path []*session.Entry
	seen := map[string]bool{}
	for e := leaf; e != nil && !seen[e.ID]; e = byID[e.ParentID] {
		seen[e.ID] = true
		path = append(path, e)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
