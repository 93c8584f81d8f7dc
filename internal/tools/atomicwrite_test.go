package tools

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// leftovers lists the temporary files the writer left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") && strings.Contains(e.Name(), ".pi-go-") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

func TestAtomicWriteModes(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.txt")
	if err := (atomicWriter{}).write(fresh, "hello"); err != nil {
		t.Fatal(err)
	}
	reference := filepath.Join(dir, "reference.txt")
	if err := os.WriteFile(reference, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(fresh)
	want, _ := os.Stat(reference)
	if got.Mode() != want.Mode() {
		t.Errorf("new file mode %v, a plain create gives %v", got.Mode(), want.Mode())
	}
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o755, 0o777} {
		p := filepath.Join(dir, "mode.txt")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := (atomicWriter{}).write(p, "new"); err != nil {
			t.Fatal(err)
		}
		if info, _ := os.Stat(p); info.Mode().Perm() != mode {
			t.Errorf("mode %v became %v", mode, info.Mode().Perm())
		}
		if mustReadFile(t, p) != "new" {
			t.Error("content not replaced")
		}
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestAtomicWriteThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	link := filepath.Join(dir, "link.txt")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := (atomicWriter{}).write(link, "new"); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if mustReadFile(t, target) != "new" {
		t.Error("the link's target was not updated")
	}

	dangling := filepath.Join(dir, "dangling.txt")
	if err := os.Symlink("created.txt", dangling); err != nil {
		t.Fatal(err)
	}
	if err := (atomicWriter{}).write(dangling, "made"); err != nil {
		t.Fatal(err)
	}
	if mustReadFile(t, filepath.Join(dir, "created.txt")) != "made" {
		t.Error("writing through a dangling link did not create its target")
	}
}

func TestAtomicWriteErrors(t *testing.T) {
	dir := t.TempDir()
	err := (atomicWriter{}).write(dir, "x")
	if err == nil || err.Error() != "EISDIR: illegal operation on a directory, open '"+dir+"'" {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "f.txt")
	err = (atomicWriter{}).write(missing, "x")
	if err == nil || !strings.HasPrefix(err.Error(), "ENOENT: no such file or directory, open '") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
}

func TestAtomicWriteToADeviceWritesInPlace(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	if err := (atomicWriter{}).write("/dev/null", "discarded"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat("/dev/null"); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", info.Mode(), err)
	}
}

func TestAtomicWriteFailedRenameKeepsOriginal(t *testing.T) {
	for _, hook := range []string{"rename", "beforeRename"} {
		t.Run(hook, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(p, []byte("original"), 0o644); err != nil {
				t.Fatal(err)
			}
			w := atomicWriter{}
			sawTemp := ""
			if hook == "rename" {
				w.rename = func(oldpath, _ string) error {
					sawTemp = mustReadFile(t, oldpath)
					return &os.LinkError{Op: "rename", Old: oldpath, New: p, Err: syscall.EIO}
				}
			} else {
				w.beforeRename = func(tmp string) error {
					sawTemp = mustReadFile(t, tmp)
					return errors.New("injected crash")
				}
			}
			err := w.write(p, "replacement")
			if err == nil {
				t.Fatal("write succeeded despite the injected failure")
			}
			if sawTemp != "replacement" {
				t.Errorf("the temporary file held %q before the rename", sawTemp)
			}
			if got := mustReadFile(t, p); got != "original" {
				t.Errorf("original became %q", got)
			}
			if left := leftovers(t, dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

const crashHelperEnv = "PI_GO_RW_CRASH_HELPER"

// TestAtomicWriteCrashHelper is the child of TestAtomicWriteSurvivesKill: it writes, reports the
// temporary file's name and then hangs before the rename until it is killed.
func TestAtomicWriteCrashHelper(t *testing.T) {
	path := os.Getenv(crashHelperEnv)
	if path == "" {
		t.Skip("helper process for TestAtomicWriteSurvivesKill")
	}
	w := atomicWriter{beforeRename: func(tmp string) error {
		os.Stdout.WriteString("READY " + tmp + "\n")
		select {} // killed here
	}}
	_ = w.write(path, "new content that must never be seen half-written")
}

func TestAtomicWriteSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(p, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAtomicWriteCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+p)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scanner := bufio.NewScanner(out)
	tmp := ""
	for scanner.Scan() {
		if rest, ok := strings.CutPrefix(scanner.Text(), "READY "); ok {
			tmp = rest
			break
		}
	}
	if tmp == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("helper never reached the rename")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := mustReadFile(t, p); got != "original" {
		t.Fatalf("after a crash before the rename the file holds %q", got)
	}
	if got := mustReadFile(t, tmp); !strings.HasPrefix(got, "new content") {
		t.Fatalf("the crashed write's temporary file holds %q", got)
	}
}
