package shell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// outputDirPrefix starts the name of every process's output directory: pi-go-<pid>-<random>.
const outputDirPrefix = "pi-go-"

// outputDirLock is the file inside an output directory that its process holds locked while it lives.
const outputDirLock = ".lock"

// outputDirStaleUnlocked is how old a directory without a lock file must be before a sweep removes
// it: younger ones may be a process's directory between mkdir and locking.
const outputDirStaleUnlocked = time.Minute

// OutputDir is the temp directory of one pi-go process for the files that let the model read output
// it was not shown in full (the bash tool's full-output spools). It is made at first use under the
// system temp directory, named pi-go-<pid>-<random>, and holds a lock file for as long as the process
// lives; Close removes it with everything in it. When a process makes its directory it also removes
// the directories of processes that are gone without cleaning up (SIGKILL, a crash): their lock is
// free. A nil *OutputDir puts the files straight into the system temp directory (pi's place), where
// nothing removes them.
type OutputDir struct {
	parent string

	mu     sync.Mutex
	path   string
	lock   *os.File
	err    error
	closed bool
}

// NewOutputDir returns the output directory of this process under parent ("" for os.TempDir()). Nothing
// is made on disk until the first file.
func NewOutputDir(parent string) *OutputDir {
	return &OutputDir{parent: parent}
}

// Path is the directory, or "" when no file was made yet.
func (d *OutputDir) Path() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path
}

// create makes a new file <prefix>-<random hex>.log, readable only by the user.
func (d *OutputDir) create(prefix string) (*os.File, string, error) {
	dir, err := d.ensure()
	if err != nil {
		return nil, "", err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	path := filepath.Join(dir, prefix+"-"+hex.EncodeToString(id[:])+".log")
	// Read-write: a spool that reaches its limit reads its own tail back (spool.compact).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", err
	}
	return f, path, nil
}

// ensure makes the directory at first use and returns it.
func (d *OutputDir) ensure() (string, error) {
	if d == nil {
		return os.TempDir(), nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed:
		return "", errors.New("the output directory is closed")
	case d.path != "" || d.err != nil:
		return d.path, d.err
	}
	parent := d.parent
	if parent == "" {
		parent = os.TempDir()
	}
	path, lock, err := makeOutputDir(parent)
	if err != nil {
		d.err = fmt.Errorf("output directory: %w", err)
		return "", d.err
	}
	d.path, d.lock = path, lock
	sweepOutputDirs(parent, path)
	return path, nil
}

// makeOutputDir creates this process's directory and takes its lock.
func makeOutputDir(parent string) (string, *os.File, error) {
	path, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-", outputDirPrefix, os.Getpid()))
	if err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(path, outputDirLock), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(path)
		return "", nil, err
	}
	return path, lock, nil
}

// sweepOutputDirs removes the output directories under parent whose process is gone: their lock can
// be taken. Errors leave a directory in place; a sweep never fails the caller.
func sweepOutputDirs(parent, own string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), outputDirPrefix) {
			if path := filepath.Join(parent, e.Name()); path != own {
				removeAbandonedOutputDir(path)
			}
		}
	}
}

// removeAbandonedOutputDir removes path when no process holds its lock, holding the lock meanwhile.
// A directory without a lock file is removed once it is old enough not to be one just being made.
func removeAbandonedOutputDir(path string) {
	lock, err := os.Open(filepath.Join(path, outputDirLock))
	if err != nil {
		if info, serr := os.Stat(path); errors.Is(err, os.ErrNotExist) && serr == nil &&
			time.Since(info.ModTime()) > outputDirStaleUnlocked {
			os.RemoveAll(path)
		}
		return
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		os.RemoveAll(path)
	}
}

// Close removes the directory and every file in it; files made afterwards go nowhere (an error).
func (d *OutputDir) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if d.path == "" {
		return nil
	}
	err := os.RemoveAll(d.path)
	d.lock.Close()
	return err
}
