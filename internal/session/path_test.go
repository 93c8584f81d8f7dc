package session

import (
	"reflect"
	"testing"
)

// TestPathToLoopingParents: parent links that loop (a damaged file) end the path at the first entry
// seen twice, as a branch without loops ends at its root.
func TestPathToLoopingParents(t *testing.T) {
	a := &Entry{ID: "a", ParentID: "c"}
	b := &Entry{ID: "b", ParentID: "a"}
	c := &Entry{ID: "c", ParentID: "b"}
	d := &Entry{ID: "d", ParentID: "c"}
	byID := map[string]*Entry{"a": a, "b": b, "c": c, "d": d}
	if got, want := pathTo(d, byID), []*Entry{a, b, c, d}; !reflect.DeepEqual(got, want) {
		t.Errorf("looping path %v, want %v", pathIDs(got), pathIDs(want))
	}
	self := &Entry{ID: "s", ParentID: "s"}
	if got := pathTo(self, map[string]*Entry{"s": self}); len(got) != 1 || got[0] != self {
		t.Errorf("self-parent path %v", pathIDs(got))
	}
	root := &Entry{ID: "r"}
	leaf := &Entry{ID: "l", ParentID: "r"}
	missing := &Entry{ID: "m", ParentID: "gone"}
	byID = map[string]*Entry{"r": root, "l": leaf, "m": missing}
	if got := pathTo(leaf, byID); !reflect.DeepEqual(got, []*Entry{root, leaf}) {
		t.Errorf("path %v", pathIDs(got))
	}
	if got := pathTo(missing, byID); !reflect.DeepEqual(got, []*Entry{missing}) {
		t.Errorf("path with a missing parent %v", pathIDs(got))
	}
}

func pathIDs(es []*Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}
