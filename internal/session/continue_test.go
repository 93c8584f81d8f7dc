package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// continueWithin runs ContinueRecent, failing if it does not return within a bound (a named pipe
// opened for reading blocks until a writer comes).
func continueWithin(t *testing.T, dir string) *Manager {
	t.Helper()
	type result struct {
		m   *Manager
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := ContinueRecent("/proj", dir)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		t.Cleanup(func() { r.m.Close() })
		return r.m
	case <-time.After(20 * time.Second):
		t.Fatal("ContinueRecent blocked")
		return nil
	}
}

// warningFor returns the warning about path, failing when there is none.
func warningFor(t *testing.T, ws []Warning, path string) Warning {
	t.Helper()
	for _, w := range ws {
		if w.Path == path {
			return w
		}
	}
	t.Fatalf("no warning names %s: %v", path, ws)
	return Warning{}
}

// -c passes over newer files that are not sessions, says which and why, and continues the newest
// valid session (pi 1.6 passes over them silently).
func TestContinueRecentSkipsInvalidNewerFilesAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	valid, _ := tornSession(t, dir)
	base := time.Now().Add(-time.Hour)
	must(0, os.Chtimes(valid, base, base))

	newer := func(name string, minutes int) string {
		path := filepath.Join(dir, name)
		at := base.Add(time.Duration(minutes) * time.Minute)
		// a symlink's own time orders it (it cannot be followed)
		if err := os.Chtimes(path, at, at); err != nil {
			if err := lutimes(path, at); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	write := func(name, content string) {
		must(0, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	write("binary.jsonl", "\x00\x01\x02\xff\xfe binary \x00")
	write("garbage.jsonl", "this is not json\nneither is this\n")
	write("empty.jsonl", "")
	write("orphan.jsonl", userLine+"\n")
	must(0, syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o600))
	must(0, os.Symlink("loop.jsonl", filepath.Join(dir, "loop.jsonl")))
	// an older invalid file is not looked at: the valid session is newer
	write("old-garbage.jsonl", "garbage")
	must(0, os.Chtimes(filepath.Join(dir, "old-garbage.jsonl"), base.Add(-time.Hour), base.Add(-time.Hour)))

	reasons := map[string]string{
		newer("binary.jsonl", 1):  "no line is JSON",
		newer("garbage.jsonl", 2): "no line is JSON",
		newer("empty.jsonl", 3):   "empty",
		newer("orphan.jsonl", 4):  "not a session header",
		newer("fifo.jsonl", 5):    "not a regular file",
		newer("loop.jsonl", 6):    "cannot be read",
	}
	if os.Geteuid() != 0 {
		write("secret.jsonl", v3Header+"\n")
		must(0, os.Chmod(filepath.Join(dir, "secret.jsonl"), 0))
		reasons[newer("secret.jsonl", 7)] = "permission denied"
	} else {
		t.Log("running as root: a chmod 000 file stays readable, so that case is covered by the symlink loop only")
	}

	m := continueWithin(t, dir)
	eq(t, m.SessionFile(), valid, "continued session")
	eq(t, len(m.Entries()), 2, "its entries")
	ws := m.Warnings()
	for path, reason := range reasons {
		if w := warningFor(t, ws, path); !strings.Contains(w.Message, reason) {
			t.Errorf("%s: warning %q does not say %q", filepath.Base(path), w.Message, reason)
		}
	}
	if w := warningFor(t, ws, valid); !strings.Contains(w.Message, "continuing") {
		t.Errorf("the continued session is not named: %v", w)
	}
	for _, w := range ws {
		if strings.Contains(w.Path, "old-garbage") {
			t.Errorf("an older invalid file was reported: %v", w)
		}
	}
	eq(t, len(ws), len(reasons)+1, "warnings (one per skipped file, one naming the session continued)")
}

// With no valid session left, -c starts a new one and says so.
func TestContinueRecentWithOnlyInvalidFilesStartsNewSessionLoudly(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "2026-01-01T00-00-00-000Z_x.jsonl")
	must(0, os.WriteFile(garbage, []byte("\x7fELF\x02\x01\x01\x00 not a session"), 0o600))
	m := continueWithin(t, dir)
	if m.SessionFile() == garbage {
		t.Fatal("the garbage file was adopted")
	}
	ws := m.Warnings()
	if w := warningFor(t, ws, garbage); !strings.Contains(w.Message, "skipped") {
		t.Errorf("warning = %v", w)
	}
	if w := warningFor(t, ws, dir); !strings.Contains(w.Message, "new session") {
		t.Errorf("warning = %v", w)
	}
	eq(t, string(must(os.ReadFile(garbage))), "\x7fELF\x02\x01\x01\x00 not a session", "garbage untouched")
}

// pi's header rule: blank and malformed lines before the first JSON line are skipped.
func TestContinueRecentFindsHeaderAfterMalformedLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "late-header.jsonl")
	must(0, os.WriteFile(path, []byte("\n{torn\n"+v3Header+"\n"+userLine+"\n"), 0o600))
	m := continueWithin(t, dir)
	eq(t, m.SessionFile(), path, "continued")
	eq(t, len(m.Entries()), 1, "entries")
}

// lutimes sets a symlink's own times.
func lutimes(path string, at time.Time) error {
	ts := unix.NsecToTimespec(at.UnixNano())
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}

// The header search is bounded (pi's 1 MiB): a large file of garbage is read no further.
func TestReadHeaderScanIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	must(0, os.WriteFile(path, []byte(strings.Repeat("garbage line\n", 2*headerScanLimit/13)+v3Header+"\n"), 0o600))
	if _, err := readHeader(path); err == nil || !strings.Contains(err.Error(), "first 1 MiB") {
		t.Fatalf("readHeader = %v", err)
	}
}
