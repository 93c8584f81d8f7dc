package rpc

import (
	"bytes"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/session"
)

// get_entries and get_tree (pi 1.6) hand out the session file's entries as they are stored: each entry
// is its line of the file, so nothing is decoded and re-encoded.

// getEntries answers {entries, leafId}: every entry in append order (all branches), or those appended
// after the entry named by since.
func (s *server) getEntries(c *command) *response {
	since, hasSince, err := c.optStr("since")
	if err != nil {
		return c.fail(err)
	}
	store := s.sess.Store()
	entries := store.Entries()
	if hasSince {
		i := indexOfEntry(entries, since)
		if i < 0 {
			return c.failText("Entry not found: " + since)
		}
		entries = entries[i+1:]
	}
	var b bytes.Buffer
	b.WriteString(`{"entries":[`)
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		line, err := e.Raw()
		if err != nil {
			return c.fail(err)
		}
		b.Write(line)
	}
	b.WriteString(`],"leafId":`)
	appendLeafID(&b, store.LeafID())
	b.WriteByte('}')
	return c.okRaw(b.Bytes())
}

func indexOfEntry(entries []*session.Entry, id string) int {
	for i, e := range entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// getTree answers {tree, leafId}: the session as a forest of {entry, children, label?,
// labelTimestamp?} nodes, children oldest first.
func (s *server) getTree(c *command) *response {
	store := s.sess.Store()
	var b bytes.Buffer
	b.WriteString(`{"tree":[`)
	for i, root := range store.Tree() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := appendTree(&b, root); err != nil {
			return c.fail(err)
		}
	}
	b.WriteString(`],"leafId":`)
	appendLeafID(&b, store.LeafID())
	b.WriteByte('}')
	return c.okRaw(b.Bytes())
}

// appendTree writes a node and everything below it without recursion: a linear session is a chain as
// deep as it is long.
func appendTree(b *bytes.Buffer, root *session.TreeNode) error {
	type frame struct {
		node *session.TreeNode
		next int // the child to write next
	}
	open := func(n *session.TreeNode) error {
		line, err := n.Entry.Raw()
		if err != nil {
			return err
		}
		b.WriteString(`{"entry":`)
		b.Write(line)
		b.WriteString(`,"children":[`)
		return nil
	}
	if err := open(root); err != nil {
		return err
	}
	stack := []frame{{node: root}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.node.Children) {
			if top.next > 0 {
				b.WriteByte(',')
			}
			child := top.node.Children[top.next]
			top.next++
			if err := open(child); err != nil {
				return err
			}
			stack = append(stack, frame{node: child})
			continue
		}
		b.WriteByte(']')
		if n := top.node; n.Label != "" {
			b.WriteString(`,"label":`)
			b.Write(jsonx.AppendString(b.AvailableBuffer(), n.Label))
			b.WriteString(`,"labelTimestamp":`)
			b.Write(jsonx.AppendString(b.AvailableBuffer(), n.LabelTimestamp))
		}
		b.WriteByte('}')
		stack = stack[:len(stack)-1]
	}
	return nil
}

// appendLeafID writes the leaf's id, or null for a session without entries.
func appendLeafID(b *bytes.Buffer, id string) {
	if id == "" {
		b.WriteString("null")
		return
	}
	b.Write(jsonx.AppendString(b.AvailableBuffer(), id))
}
