package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/output"
)

func lsWriteTree(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLs(t *testing.T) {
	dir := t.TempDir()
	lsWriteTree(t, dir, "b.txt", "A.txt", ".env", "_private", "-dash", "src/", "src/main.go", "Zeta/", "empty/", "file.txt")
	if err := os.Symlink("src", filepath.Join(dir, "link-to-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "broken")); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(dir, "many")
	for i := range 12 {
		lsWriteTree(t, many, fmt.Sprintf("f%02d", i))
	}
	long := filepath.Join(dir, "long")
	for i := range 600 {
		lsWriteTree(t, long, fmt.Sprintf("%s%04d", strings.Repeat("n", 100), i))
	}

	tests := []struct {
		name, args, want, wantErr, details string
	}{
		{name: "sorted with dotfiles and folders", args: `{}`,
			want: "_private\n-dash\n.env\nA.txt\nb.txt\nempty/\nfile.txt\nlink-to-dir/\nlong/\nmany/\nsrc/\nZeta/"},
		{name: "relative path", args: `{"path":"src"}`, want: "main.go"},
		{name: "empty", args: `{"path":"empty"}`, want: "(empty directory)"},
		{name: "limit", args: `{"path":"many","limit":3}`,
			want:    "f00\nf01\nf02\n\n[3 entries limit reached. Use limit=6 for more]",
			details: `{"entryLimitReached":3}`},
		{name: "limit equal to count", args: `{"path":"many","limit":12}`,
			want: "f00\nf01\nf02\nf03\nf04\nf05\nf06\nf07\nf08\nf09\nf10\nf11"},
		{name: "limit zero", args: `{"path":"many","limit":0}`, want: "(empty directory)"},
		{name: "byte limit", args: `{"path":"long","limit":1000}`, want: "\n\n[50.0KB limit reached]"},
		{name: "missing", args: `{"path":"nope"}`, wantErr: "Path not found: " + filepath.Join(dir, "nope")},
		{name: "broken link", args: `{"path":"broken"}`, wantErr: "Path not found: " + filepath.Join(dir, "broken")},
		{name: "file", args: `{"path":"b.txt"}`, wantErr: "Not a directory: " + filepath.Join(dir, "b.txt")},
	}
	tool := NewLs(dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(tc.args)}, nil)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := bashText(res)
			if tc.name == "byte limit" {
				if !strings.HasSuffix(text, tc.want) || len(text) > output.DefaultMaxBytes+100 {
					t.Fatalf("text ends %q", text[max(0, len(text)-60):])
				}
				d := res.Details.(*LsDetails)
				if d.Truncation == nil || d.EntryLimitReached != nil {
					t.Fatalf("details %s", bashJSON(t, d))
				}
				return
			}
			if text != tc.want {
				t.Fatalf("text %q\nwant %q", text, tc.want)
			}
			if tc.details == "" {
				if res.Details != nil {
					t.Fatalf("details %s", bashJSON(t, res.Details))
				}
			} else if got := bashJSON(t, res.Details); got != tc.details {
				t.Fatalf("details %s, want %s", got, tc.details)
			}
		})
	}
}

func TestLsAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewLs(t.TempDir()).Execute(ctx, loop.ToolCall{Args: json.RawMessage(`{}`)}, nil); err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("error %v", err)
	}
}

func TestLsNodeMessage(t *testing.T) {
	err := &os.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}
	if got := lsNodeMessage(err, "scandir", "/x"); got != "EACCES: permission denied, scandir '/x'" {
		t.Fatalf("got %q", got)
	}
}
