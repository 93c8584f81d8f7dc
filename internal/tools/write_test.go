package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
)

func TestWriteTool(t *testing.T) {
	dir := t.TempDir()
	tool := NewWrite(dir, WriteOptions{})
	abs := filepath.Join(dir, "write-test.txt")

	res, err := readCall(t, tool, map[string]any{"path": abs, "content": "Test content"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readText(res); got != "Successfully wrote to "+abs || res.Details != nil {
		t.Fatalf("result %q, details %v", got, res.Details)
	}
	if mustReadFile(t, abs) != "Test content" {
		t.Fatal("content not written")
	}

	// Nested folders are created; the path is echoed as given; bytes are UTF-8 bytes.
	res, err = readCall(t, tool, map[string]any{"path": "nested/dir/test.txt", "content": "héllo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readText(res); got != "Successfully wrote to nested/dir/test.txt" {
		t.Fatalf("result %q", got)
	}
	if mustReadFile(t, filepath.Join(dir, "nested", "dir", "test.txt")) != "héllo" {
		t.Fatal("nested file not written")
	}

	// Overwriting keeps the file's mode.
	if err := os.Chmod(abs, 0o751); err != nil {
		t.Fatal(err)
	}
	if _, err := readCall(t, tool, map[string]any{"path": abs, "content": ""}); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(abs); info.Mode().Perm() != 0o751 || info.Size() != 0 {
		t.Fatalf("after overwrite: mode %v size %d", info.Mode().Perm(), info.Size())
	}
}

func TestWriteToolErrors(t *testing.T) {
	dir := t.TempDir()
	tool := NewWrite(dir, WriteOptions{})
	file := readWriteFile(t, dir, "plain.txt", "x")
	cases := []struct {
		name string
		path string
		want string
	}{
		{"path is a folder", dir, "EISDIR: illegal operation on a directory, open '" + dir + "'"},
		{"parent is a file", "plain.txt/child.txt", "ENOTDIR: not a directory, mkdir '" + file + "'"},
	}
	for _, c := range cases {
		_, err := readCall(t, tool, map[string]any{"path": c.path, "content": "x"})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Execute(ctx, loop.ToolCall{Name: "write", Args: json.RawMessage(`{"path":"a.txt","content":"x"}`)}, nil)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("aborted write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Fatal("an aborted write created the file")
	}
}

func TestWriteToolFailedRenameKeepsOriginal(t *testing.T) {
	dir := t.TempDir()
	p := readWriteFile(t, dir, "f.txt", "original")
	tool := NewWrite(dir, WriteOptions{}).(*writeTool)
	tool.writer.rename = func(oldpath, newpath string) error {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.ENOSPC}
	}
	_, err := readCall(t, tool, map[string]any{"path": "f.txt", "content": "replacement"})
	if err == nil || err.Error() != "ENOSPC: no space left on device, rename '"+p+"'" {
		t.Fatalf("error %v", err)
	}
	if mustReadFile(t, p) != "original" {
		t.Fatal("original damaged")
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestWriteDefinition(t *testing.T) {
	def := NewWrite("/", WriteOptions{}).Definition()
	if def.Name != "write" || def.Description != "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories." {
		t.Errorf("definition %q: %q", def.Name, def.Description)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(def.Parameters, &schema); err != nil || len(schema.Required) != 2 || len(schema.Properties) != 2 {
		t.Errorf("schema %s: %v", def.Parameters, err)
	}
}
