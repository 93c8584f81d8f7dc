package session

// Ports of pi's labels, save-entry and custom-session-id tests (test/session-manager/).

import (
	"testing"
)

func TestLabels(t *testing.T) {
	ok := mustAppend(t)
	t.Run("set and get", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		eq(t, s.Label(msgID), "", "no label")
		labelID := ok(s.AppendLabelChange(msgID, "checkpoint"))
		eq(t, s.Label(msgID), "checkpoint", "label")
		e := s.Entry(labelID)
		eq(t, e.Type, TypeLabel, "type")
		eq(t, e.TargetID, msgID, "target")
		eq(t, e.Label, "checkpoint", "label field")
	})
	t.Run("clear", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		ok(s.AppendLabelChange(msgID, "checkpoint"))
		ok(s.AppendLabelChange(msgID, ""))
		eq(t, s.Label(msgID), "", "cleared")
		raw, _ := s.LeafEntry().Raw()
		eq(t, string(raw[len(raw)-len(`"targetId":"`+msgID+`"}`):]), `"targetId":"`+msgID+`"}`, "no label field when clearing")
	})
	t.Run("last wins", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		for _, l := range []string{"first", "second", "third"} {
			ok(s.AppendLabelChange(msgID, l))
		}
		eq(t, s.Label(msgID), "third", "label")
	})
	t.Run("tree nodes", func(t *testing.T) {
		s := InMemory("/tmp")
		m1 := ok(s.AppendMessage(userMsg("hello")))
		m2 := ok(s.AppendMessage(assistantMsg("hi")))
		ok(s.AppendLabelChange(m1, "start"))
		ok(s.AppendLabelChange(m2, "response"))
		tree := s.Tree()
		eq(t, tree[0].Entry.ID, m1, "root")
		eq(t, tree[0].Label, "start", "root label")
		eq(t, tree[0].Children[0].Entry.ID, m2, "child")
		eq(t, tree[0].Children[0].Label, "response", "child label")
		if tree[0].LabelTimestamp == "" {
			t.Fatal("no label timestamp")
		}
	})
	t.Run("preserved by createBranchedSession", func(t *testing.T) {
		s := InMemory("/tmp")
		m1 := ok(s.AppendMessage(userMsg("hello")))
		m2 := ok(s.AppendMessage(assistantMsg("hi")))
		ok(s.AppendLabelChange(m1, "important"))
		ok(s.AppendLabelChange(m2, "also-important"))
		if _, err := s.CreateBranchedSession(m2); err != nil {
			t.Fatal(err)
		}
		eq(t, s.Label(m1), "important", "label 1")
		eq(t, s.Label(m2), "also-important", "label 2")
		n := 0
		for _, e := range s.Entries() {
			if e.Type == TypeLabel {
				n++
			}
		}
		eq(t, n, 2, "label entries")
	})
	t.Run("off-path labels dropped by createBranchedSession", func(t *testing.T) {
		s := InMemory("/tmp")
		m1 := ok(s.AppendMessage(userMsg("hello")))
		m2 := ok(s.AppendMessage(assistantMsg("hi")))
		m3 := ok(s.AppendMessage(userMsg("followup")))
		ok(s.AppendLabelChange(m1, "first"))
		ok(s.AppendLabelChange(m2, "second"))
		ok(s.AppendLabelChange(m3, "third"))
		if _, err := s.CreateBranchedSession(m2); err != nil {
			t.Fatal(err)
		}
		eq(t, s.Label(m1), "first", "label 1")
		eq(t, s.Label(m2), "second", "label 2")
		eq(t, s.Label(m3), "", "label 3")
		// re-created labels chain after the path and keep the original label times
		es := s.Entries()
		eq(t, es[2].ParentID, m2, "first label's parent")
		eq(t, es[3].ParentID, es[2].ID, "second label's parent")
	})
	t.Run("not in context", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		ok(s.AppendLabelChange(msgID, "checkpoint"))
		ctx, _ := s.BuildContext()
		eq(t, len(ctx.Messages), 1, "messages")
		eq(t, ctx.Messages[0].Role(), "user", "role")
	})
	t.Run("missing target", func(t *testing.T) {
		s := InMemory("/tmp")
		if _, err := s.AppendLabelChange("non-existent", "label"); err == nil || err.Error() != "Entry non-existent not found" {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSaveCustomEntry(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	msgID := ok(s.AppendMessage(userMsg("hello")))
	customID := ok(s.AppendCustomEntry("my_data", map[string]string{"foo": "bar"}))
	msg2ID := ok(s.AppendMessage(assistantMsg("hi")))
	es := s.Entries()
	eq(t, len(es), 3, "entries")
	c := s.Entry(customID)
	eq(t, c.CustomType, "my_data", "custom type")
	eq(t, string(c.Data), `{"foo":"bar"}`, "data")
	eq(t, c.ParentID, msgID, "parent")
	eqSlice(t, ids(s.Path("")), []string{msgID, customID, msg2ID}, "path")
	ctx, _ := s.BuildContext()
	eq(t, len(ctx.Messages), 2, "messages")
}

func TestNewSessionWithCustomID(t *testing.T) {
	s := InMemory("/tmp")
	if _, err := s.NewSession(NewSessionOptions{ID: "my-custom-id"}); err != nil {
		t.Fatal(err)
	}
	eq(t, s.SessionID(), "my-custom-id", "id")
	eq(t, s.Header().ID, "my-custom-id", "header id")
	s.NewSession(NewSessionOptions{})
	if s.SessionID() == "" || s.SessionID() == "my-custom-id" {
		t.Fatalf("generated id = %q", s.SessionID())
	}
	s.NewSession(NewSessionOptions{ParentSession: "parent.jsonl"})
	if s.SessionID() == "" {
		t.Fatal("no id with options without id")
	}
	eq(t, s.Header().ParentSession, "parent.jsonl", "parent session")
}
