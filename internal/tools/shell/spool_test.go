package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/tools/output"
)

// spoolWrite writes the chunks to a spool with a small limit and returns its file's content.
func spoolWrite(t *testing.T, limit int64, chunks ...string) (string, *spool) {
	t.Helper()
	dir := NewOutputDir(t.TempDir())
	t.Cleanup(func() { dir.Close() })
	s := newSpool(dir, "pi-bash")
	s.limit = limit
	if !s.open() {
		t.Fatal("no file")
	}
	for _, c := range chunks {
		s.write([]byte(c))
	}
	s.close()
	data, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), s
}

func TestBashSpoolKeepsTheEndOfLongOutput(t *testing.T) {
	var lines []string
	for i := 1; i <= 300; i++ {
		lines = append(lines, strings.Repeat("x", 9)+"\n") // 10 bytes a line
	}
	got, s := spoolWrite(t, 1000, lines...)
	header, body, _ := strings.Cut(got, "\n")
	if len(got) > 1000 {
		t.Fatalf("file has %d bytes, limit 1000", len(got))
	}
	dropped := int(s.droppedLines)
	if body != strings.Repeat("xxxxxxxxx\n", 300-dropped) || dropped == 0 {
		t.Fatalf("body %q after dropping %d lines", body, dropped)
	}
	want := "[pi-go: this file keeps only the end of the output (limit 1000B): the first " + output.FormatSize(dropped*10) +
		" (" + strconv.Itoa(dropped) + " lines) were dropped; what follows starts at line " + strconv.Itoa(dropped+1) + "]"
	if header != want {
		t.Fatalf("header %q\n  want %q", header, want)
	}
	if note := s.droppedNote(); note != " (the first "+output.FormatSize(dropped*10)+" were dropped to keep the file under 1000B; its first line says where it starts)" {
		t.Fatalf("note %q", note)
	}
}

func TestBashSpoolCutsOneLongLineAtACharacter(t *testing.T) {
	// One line of three-byte characters, longer than the limit: the file keeps its end, starting at a
	// character boundary.
	got, s := spoolWrite(t, 600, strings.Repeat("€", 100), strings.Repeat("€", 100), strings.Repeat("€", 100))
	header, body, _ := strings.Cut(got, "\n")
	if !strings.HasSuffix(header, "what follows is the end of line 1]") || !s.midLine {
		t.Fatalf("header %q", header)
	}
	if body == "" || strings.Trim(body, "€") != "" {
		t.Fatalf("body %q is not whole characters", body)
	}
}

func TestBashSpoolKeepsTheEndOfALongLastLine(t *testing.T) {
	// Cutting at the first newline of the kept part would drop nearly all of it: the file keeps the
	// end of the long line instead.
	got, _ := spoolWrite(t, 1000, "a\n", strings.Repeat("x", 1200)+"\n", "tail\n")
	header, body, _ := strings.Cut(got, "\n")
	if !strings.HasSuffix(header, "the first 703B were dropped; what follows is the end of line 2]") {
		t.Fatalf("header %q", header)
	}
	if body != strings.Repeat("x", 499)+"\ntail\n" {
		t.Fatalf("body %q", body)
	}
}

func TestBashSpoolUnderTheLimitIsTheWholeOutput(t *testing.T) {
	got, s := spoolWrite(t, 1000, "a\n", "b\n")
	if got != "a\nb\n" || s.droppedNote() != "" {
		t.Fatalf("%q %q", got, s.droppedNote())
	}
}

func TestUserBashSpoolIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("40 MB of output")
	}
	dir := NewOutputDir(t.TempDir())
	t.Cleanup(func() { dir.Close() })
	res, err := RunUser(context.Background(), "yes abcdefghi | head -c 40000000", t.TempDir(), Options{OutputDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || filepath.Dir(res.FullOutputPath) != dir.Path() {
		t.Fatalf("result %+v, directory %s", res, dir.Path())
	}
	st, err := os.Stat(res.FullOutputPath)
	if err != nil || st.Size() > spoolLimit {
		t.Fatalf("full output file: %v, %v", st, err)
	}
}

func TestOutputDirIsMadeAtFirstUseAndRemovedOnClose(t *testing.T) {
	parent := t.TempDir()
	d := NewOutputDir(parent)
	if d.Path() != "" {
		t.Fatal("made before first use")
	}
	f, path, err := d.create("pi-bash")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if filepath.Dir(path) != d.Path() || !strings.HasPrefix(filepath.Base(d.Path()), "pi-go-"+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("file %s in %s", path, d.Path())
	}
	if st, _ := os.Stat(path); st == nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", st)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
		t.Fatalf("directory still there: %v", err)
	}
	if _, _, err := d.create("pi-bash"); err == nil {
		t.Fatal("a file was made after Close")
	}
}

func TestOutputDirSweepRemovesOnlyAbandonedDirectories(t *testing.T) {
	parent := t.TempDir()
	mk := func(name string, lock bool) string {
		path := filepath.Join(parent, name)
		if err := os.MkdirAll(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "pi-bash-1.log"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(path, outputDirLock), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	alive := mk("pi-go-1-alive", true)
	held, err := os.Open(filepath.Join(alive, outputDirLock))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	dead := mk("pi-go-2-dead", true)
	young := mk("pi-go-3-young", false)
	old := mk("pi-go-4-old", false)
	past := time.Now().Add(-2 * outputDirStaleUnlocked)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	other := mk("not-pi-go", true)

	d := NewOutputDir(parent)
	defer d.Close()
	f, _, err := d.create("pi-bash")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for path, want := range map[string]bool{alive: true, dead: false, young: true, old: false, other: true, d.Path(): true} {
		_, err := os.Stat(path)
		if got := err == nil; got != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(path), got, want)
		}
	}
}
