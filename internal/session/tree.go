package session

import (
	"iter"
	"sort"

	"github.com/pi-go/pi-go/internal/provider"
)

// labelIndex maps an entry id to its current label, remembering the order in which labels were first
// set (JavaScript Map order), which is the order a fork re-creates them in.
type labelIndex struct {
	byTarget map[string]labelState
	seq      int
}

type labelState struct {
	label, timestamp string
	seq              int
}

func (l *labelIndex) set(target, label, ts string) {
	if l.byTarget == nil {
		l.byTarget = map[string]labelState{}
	}
	if label == "" {
		delete(l.byTarget, target)
		return
	}
	st, ok := l.byTarget[target]
	if !ok {
		l.seq++
		st.seq = l.seq
	}
	st.label, st.timestamp = label, ts
	l.byTarget[target] = st
}

func (l *labelIndex) get(target string) (labelState, bool) {
	st, ok := l.byTarget[target]
	return st, ok
}

// ordered returns the labelled ids in Map order.
func (l *labelIndex) ordered() []string {
	ids := make([]string, 0, len(l.byTarget))
	for id := range l.byTarget {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return l.byTarget[ids[i]].seq < l.byTarget[ids[j]].seq })
	return ids
}

// Label returns an entry's label ("" when none).
func (m *Manager) Label(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, _ := m.labels.get(id)
	return st.label
}

// Branch moves the leaf to an existing entry; the next append becomes its child (a new branch).
func (m *Manager) Branch(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byID[id]
	if !ok {
		return notFound(id)
	}
	m.leaf = e
	return nil
}

// ResetLeaf moves the leaf before the first entry; the next append is a new root.
func (m *Manager) ResetLeaf() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leaf = nil
}

// BranchWithSummary moves the leaf to branchFromID ("" for before the first entry) and appends a
// branch_summary entry there describing the branch that was left; it becomes the leaf. As in pi 1.6
// the entry's fromId is the leaf before the move (the branch summarised; "root" when there was
// none; pi 0.73.1 wrote the new position), and usage is what the summary request cost (nil: none).
func (m *Manager) BranchWithSummary(branchFromID, summary string, details any, fromHook bool, usage *provider.Usage) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var at *Entry
	if branchFromID != "" {
		var ok bool
		if at, ok = m.byID[branchFromID]; !ok {
			return "", notFound(branchFromID)
		}
	}
	from := "root"
	if m.leaf != nil {
		from = m.leaf.ID
	}
	m.leaf = at
	e := m.base(TypeBranchSummary)
	e.FromID = from
	e.Summary, e.FromHook = summary, fromHook
	if usage != nil {
		u := *usage
		e.usage = &u
	}
	var err error
	if e.Details, err = marshalValue(details); err != nil {
		return "", err
	}
	return m.appendEncoded(e)
}

// pathTo walks parentId links from e to its root and returns the entries root first. A broken chain
// (a parent that does not exist) simply ends the path; a cycle ends it too.
func pathTo(e *Entry, byID map[string]*Entry) []*Entry {
	start := e
	var rev []*Entry
	for e != nil {
		if len(rev) > len(byID) {
			// More steps than entries: the parent links loop (a damaged file). Walk again, stopping
			// at the first entry seen twice. (Checking every step costs a map of the whole branch.)
			return pathToChecked(start, byID)
		}
		rev = append(rev, e)
		if e.ParentID == "" {
			break
		}
		e = byID[e.ParentID]
	}
	reverseEntries(rev)
	return rev
}

// pathToChecked is pathTo for parent links that may loop.
func pathToChecked(e *Entry, byID map[string]*Entry) []*Entry {
	var rev []*Entry
	seen := map[*Entry]bool{}
	for e != nil && !seen[e] {
		seen[e] = true
		rev = append(rev, e)
		if e.ParentID == "" {
			break
		}
		e = byID[e.ParentID]
	}
	reverseEntries(rev)
	return rev
}

// ancestors yields e and its ancestors, leaf first, for a search that may stop early; it takes at
// most one step per entry, since the parent links of a damaged file may loop.
func ancestors(e *Entry, byID map[string]*Entry) iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		for steps := 0; e != nil && steps <= len(byID); steps++ {
			if !yield(e) || e.ParentID == "" {
				return
			}
			e = byID[e.ParentID]
		}
	}
}

func reverseEntries(es []*Entry) {
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
}

// Path returns the entries from the root to fromID ("" means the leaf), every type included.
func (m *Manager) Path(fromID string) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pathLocked(fromID)
}

func (m *Manager) pathLocked(fromID string) []*Entry {
	start := m.leaf
	if fromID != "" {
		start = m.byID[fromID]
	}
	return pathTo(start, m.byID)
}

// Children returns the direct children of an entry in file order.
func (m *Manager) Children(parentID string) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Entry
	for _, e := range m.entries {
		if e.ParentID == parentID && parentID != "" {
			out = append(out, e)
		}
	}
	return out
}

// TreeNode is an entry with its children (oldest first) and resolved label.
type TreeNode struct {
	Entry          *Entry
	Children       []*TreeNode
	Label          string
	LabelTimestamp string
}

// Tree returns the session as a forest: entries whose parent is null, themselves or missing are
// roots. Children are sorted by timestamp, oldest first.
func (m *Manager) Tree() []*TreeNode {
	m.mu.Lock()
	defer m.mu.Unlock()
	nodes := make(map[string]*TreeNode, len(m.entries))
	for _, e := range m.entries {
		st, _ := m.labels.get(e.ID)
		nodes[e.ID] = &TreeNode{Entry: e, Label: st.label, LabelTimestamp: st.timestamp}
	}
	var roots []*TreeNode
	for _, e := range m.entries {
		n := nodes[e.ID]
		parent := nodes[e.ParentID]
		if e.ParentID == "" || e.ParentID == e.ID || parent == nil {
			roots = append(roots, n)
			continue
		}
		parent.Children = append(parent.Children, n)
	}
	// iterative, so a very deep tree cannot overflow the stack; times are parsed once, and only for
	// siblings
	times := map[*TreeNode]int64{}
	stack := append([]*TreeNode(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(n.Children) > 1 {
			for _, c := range n.Children {
				times[c] = c.Entry.Time()
			}
			sort.SliceStable(n.Children, func(i, j int) bool { return times[n.Children[i]] < times[n.Children[j]] })
		}
		stack = append(stack, n.Children...)
	}
	return roots
}
