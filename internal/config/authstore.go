package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// AuthStore reads and changes auth.json the way pi's AuthStorage does, so pi and pi-go share logins:
// every change holds the "<file>.lock" directory pi's proper-lockfile uses, re-reads the file, and
// writes it whole as JSON.stringify(data, null, 2) (the other entries kept, in their order) with mode
// 0600, through a temp file so a crash never leaves half a file. Reads are re-done when the file
// changed (size or time), so a login made by another pi is seen. Safe for concurrent use.
type AuthStore struct {
	path string

	mu    sync.Mutex // guards the cache below
	stamp fileStamp
	data  *jsonx.Object
}

type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

// StoredCredential names one auth.json entry (its secret is not included).
type StoredCredential struct {
	Provider string
	Type     string // "api_key" or "oauth"
}

// authLock is auth.json's lock, timed as pi's: a change may hold it through a token refresh (bounded
// by OAuthRefreshTimeout), so a waiter waits up to 30 s, and a lock older than that is stale.
var authLock = fileLock{wait: 30 * time.Second, stale: 30 * time.Second, dirPerm: 0o700}

// NewAuthStore is the store of the auth.json at path.
func NewAuthStore(path string) *AuthStore { return &AuthStore{path: path} }

// Path is the file.
func (s *AuthStore) Path() string { return s.path }

func stampOf(path string) fileStamp {
	info, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: info.Size(), mod: info.ModTime(), ok: true}
}

// load returns the file's entries, from the cache when the file did not change.
func (s *AuthStore) load() (*jsonx.Object, error) {
	st := stampOf(s.path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data != nil && st == s.stamp {
		return s.data, nil
	}
	obj, err := readAuthObject(s.path)
	if err != nil {
		return nil, err
	}
	s.data, s.stamp = obj, st
	return obj, nil
}

// readAuthObject parses auth.json; a missing or empty file is an empty object. Errors never quote
// the content.
func readAuthObject(path string) (*jsonx.Object, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return jsonx.NewObject(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read auth.json: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return jsonx.NewObject(), nil
	}
	obj, err := jsonx.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object of credentials", path)
	}
	return obj, nil
}

// Credential is provider's entry as stored, or nil without one.
func (s *AuthStore) Credential(provider string) (json.RawMessage, error) {
	obj, err := s.load()
	if err != nil {
		return nil, err
	}
	raw, _ := obj.Get(provider)
	return raw, nil
}

// List names the stored credentials, in the file's order.
func (s *AuthStore) List() ([]StoredCredential, error) {
	obj, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []StoredCredential
	for name, raw := range obj.All() {
		out = append(out, StoredCredential{Provider: name, Type: credentialType(raw)})
	}
	return out, nil
}

// credentialType is an entry's "type" ("" when it has none).
func credentialType(raw json.RawMessage) string {
	var c struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.Type
}

// Modify runs fn on provider's current entry (nil: none) while holding the file's lock and stores
// what it returns; fn returning nil changes nothing. The result is the entry after the change.
// ctx bounds only the wait for the lock: once fn runs, the change is finished (a refreshed token
// that is not stored would be lost for good, as its refresh token may have been rotated).
func (s *AuthStore) Modify(ctx context.Context, provider string, fn func(current json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	var out json.RawMessage
	err := authLock.with(ctx, s.path, func() error {
		obj, err := readAuthObject(s.path)
		if err != nil {
			return err
		}
		current, _ := obj.Get(provider)
		next, err := fn(current)
		if err != nil {
			return err
		}
		if next == nil {
			out = current
			return nil
		}
		if !jsonx.IsObject(next) {
			return fmt.Errorf("auth.json: the credential of %s is not a JSON object", provider)
		}
		obj.Set(provider, next)
		out = next
		return s.write(obj)
	})
	return out, err
}

// Delete removes provider's entry; removed is false when there was none.
func (s *AuthStore) Delete(ctx context.Context, provider string) (removed bool, err error) {
	err = authLock.with(ctx, s.path, func() error {
		obj, err := readAuthObject(s.path)
		if err != nil {
			return err
		}
		if removed = obj.Has(provider); !removed {
			return nil
		}
		obj.Delete(provider)
		return s.write(obj)
	})
	return removed, err
}

// write replaces the file with obj (mode 0600 whatever the old file had: it holds secrets) and
// refreshes the cache.
func (s *AuthStore) write(obj *jsonx.Object) error {
	data, err := obj.MarshalIndent("  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	if err := writeFileAtomic(s.path, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(s.path, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	s.mu.Lock()
	s.data, s.stamp = obj, stampOf(s.path)
	s.mu.Unlock()
	return nil
}
