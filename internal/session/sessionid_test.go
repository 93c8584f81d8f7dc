package session

import (
	"os"
	"path/filepath"
	"testing"
)

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{"a": true, "interop-session-1": true, "A.b_c-9": true, "": false, "-a": false,
		"a-": false, "a b": false, "a/b": false, "é": false, "01a23733-73ce-720e-9a1d-77059519fb0a": true} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
}

// --session-id: a new session takes the id in its header and file name; FindByID finds it by its
// header, also when the file was renamed.
func TestSessionWithIDAndFindByID(t *testing.T) {
	dir := t.TempDir()
	m, err := CreateWithID("/proj", dir, "my-id")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendSessionInfo("named"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendMessage(userMsg("hi")); err != nil {
		t.Fatal(err)
	}
	m.Close()
	path := m.SessionFile()
	if filepath.Dir(path) != dir || filepath.Ext(path) != ".jsonl" || FindByID(dir, "my-id") != path {
		t.Fatalf("path %q, found %q", path, FindByID(dir, "my-id"))
	}
	renamed := filepath.Join(dir, "renamed.jsonl")
	if err := os.Rename(path, renamed); err != nil {
		t.Fatal(err)
	}
	if FindByID(dir, "my-id") != renamed || FindByID(dir, "my") != "" || FindByID(filepath.Join(dir, "none"), "my-id") != "" {
		t.Error("FindByID after a rename")
	}
	if _, err := CreateWithID("/proj", dir, "bad id"); err == nil {
		t.Error("invalid id accepted")
	}
	if InMemoryWithID("/proj", "x1").SessionID() != "x1" {
		t.Error("InMemoryWithID")
	}
}
