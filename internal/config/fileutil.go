package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// fileLock is how a "<file>.lock" directory (pi's proper-lockfile lock) is taken: a waiter gives up
// after wait, a lock older than stale was left by a process that died holding it, and the file's
// folder is made with dirPerm when missing.
type fileLock struct {
	wait, stale time.Duration
	dirPerm     os.FileMode
}

// settingsLock is the lock of settings and trust files: retried briefly, stale after 10 s.
var settingsLock = fileLock{wait: time.Second, stale: 10 * time.Second, dirPerm: 0o755}

// withFileLock runs fn while holding "<path>.lock", the same lock directory pi uses, so pi and pi-go
// never write one settings file at the same time.
func withFileLock(path string, fn func() error) error {
	return settingsLock.with(context.Background(), path, fn)
}

// with runs fn holding "<path>.lock", waiting for it up to l.wait or until ctx ends.
func (l fileLock) with(ctx context.Context, path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), l.dirPerm); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	lock := path + ".lock"
	deadline := time.Now().Add(l.wait)
	delay := 10 * time.Millisecond
	for {
		err := os.Mkdir(lock, l.dirPerm)
		if err == nil {
			defer os.Remove(lock)
			return fn()
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if info, serr := os.Stat(lock); serr == nil && time.Since(info.ModTime()) > l.stale {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lock %s: held by another process (remove %s if no pi is running)", path, lock)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, time.Second)
	}
}

// writeFileAtomic replaces path with data through a temp file in the same folder, so a crash never
// leaves a half-written file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	cleanup := func(e error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, e)
	}
	if _, err := tmp.Write(data); err != nil {
		return cleanup(err)
	}
	if err := tmp.Sync(); err != nil {
		return cleanup(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return cleanup(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
