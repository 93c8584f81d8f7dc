package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi --export <session> [output] writes the page and exits, as pi does; a missing file is pi's
// error with exit code 1.
func TestExportFlagWritesTheSessionPage(t *testing.T) {
	p := newProject(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "export", "testdata", "rich.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(p.dir, "s.jsonl")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.run("", "--export", "s.jsonl", "out/page.html")
	want := filepath.Join(p.dir, "out", "page.html")
	if r.code != 0 || r.stdout != "Exported to: "+want+"\n" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(page), "<title>Fix greeting</title>") || !strings.Contains(string(page), "--c-syntaxKeyword:#69add0;") {
		t.Fatalf("page: %v", err)
	}
	r = p.run("", "--export", "s.jsonl")
	if def := filepath.Join(p.dir, "pi-session-s.html"); r.code != 0 || r.stdout != "Exported to: "+def+"\n" {
		t.Fatalf("default output: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	r = p.run("", "--export", "missing.jsonl")
	if r.code != 1 || !strings.Contains(r.stderr, "File not found: "+filepath.Join(p.dir, "missing.jsonl")) {
		t.Fatalf("missing: exit %d %s", r.code, r.stderr)
	}
}
