package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Lock timing compatible with pi's proper-lockfile use: a "<file>.lock" directory, retried briefly,
// considered stale after 10 s (a process that died while holding it).
const (
	lockAttempts = 50
	lockDelay    = 20 * time.Millisecond
	lockStale    = 10 * time.Second
)

// withFileLock runs fn while holding "<path>.lock", the same lock directory pi uses, so pi and pi-go
// never write one settings file at the same time.
func withFileLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	lock := path + ".lock"
	var err error
	for attempt := 0; attempt < lockAttempts; attempt++ {
		if err = os.Mkdir(lock, 0o755); err == nil {
			defer os.Remove(lock)
			return fn()
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if info, serr := os.Stat(lock); serr == nil && time.Since(info.ModTime()) > lockStale {
			_ = os.Remove(lock)
			continue
		}
		time.Sleep(lockDelay)
	}
	return fmt.Errorf("lock %s: held by another process (remove %s if no pi is running)", path, lock)
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
