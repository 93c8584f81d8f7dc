package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// DefaultMaxFileSize is the size above which a file is left out of snapshots.
const DefaultMaxFileSize = 10 << 20

// Ref namespaces of a store: one ref per checkpoint keeps it reachable until pruned; one per session
// records the last state that session's own changes left (the base for outside-change detection).
const (
	checkpointRefs = "refs/checkpoints/"
	knownRefs      = "refs/known/"
)

// storeAttributes override the project's .gitattributes so bytes are stored as they are.
const storeAttributes = "* -text -filter -ident -working-tree-encoding\n"

// Options configure a Store.
type Options struct {
	// AgentDir holds the stores (in its checkpoints folder).
	AgentDir string
	// ProjectDir is the working tree snapshots are taken of.
	ProjectDir string
	// MaxFileSize: files larger than this many bytes are left out (0: DefaultMaxFileSize; <0: no limit).
	MaxFileSize int64
	// Git is the git binary ("": looked up on PATH).
	Git string
}

// Store is the shadow repository of one project. Its methods are safe for concurrent use, and
// processes sharing a store take turns through a lock file.
type Store struct {
	dir         string
	project     string
	maxFileSize int64
	git         *git
	objects     *objectWriter
	racyWindow  time.Duration // racyWindow, but for tests

	mu sync.Mutex // serialises this process's use of the store
	// man is the manifest of the latest snapshot this process took or read (nil: read it from the
	// file). Guarded by mu.
	man *manifest
	// scan is the scratch repository that answers ignore queries (nil until first needed).
	scan *git
	// userEnv is the environment the store was opened in: where the user's git configuration is.
	userEnv []string
	// excludes is the user's global excludes file (see globalExcludes), once excludesKnown.
	excludes      string
	excludesKnown bool
}

// StoresDir is the folder holding every project's store.
func StoresDir(agentDir string) string { return filepath.Join(agentDir, "checkpoints") }

// StoreDir is the store folder of a project directory (which should be absolute).
func StoreDir(agentDir, projectDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(projectDir)))
	return filepath.Join(StoresDir(agentDir), hex.EncodeToString(sum[:8]))
}

// Open opens the project's store, creating it on first use. Without a git binary it returns
// ErrGitMissing.
func Open(ctx context.Context, opts Options) (*Store, error) {
	binary := opts.Git
	if binary == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return nil, ErrGitMissing
		}
		binary = p
	} else if _, err := exec.LookPath(binary); err != nil {
		return nil, ErrGitMissing
	}
	project, err := filepath.Abs(opts.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: project directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	dir := StoreDir(opts.AgentDir, project)
	s := &Store{
		dir:         dir,
		project:     project,
		maxFileSize: opts.MaxFileSize,
		git:         newGit(binary, filepath.Join(dir, "git"), project, filepath.Join(dir, "index")),
		objects:     &objectWriter{dir: filepath.Join(dir, "git", "objects")},
		racyWindow:  racyWindow,
		userEnv:     os.Environ(),
	}
	if s.maxFileSize == 0 {
		s.maxFileSize = DefaultMaxFileSize
	}
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Project is the absolute project directory.
func (s *Store) Project() string { return s.project }

// init creates the repository and its attributes file unless they exist.
func (s *Store) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.git.gitDir, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoints: create %s: %w", s.dir, err)
	}
	return s.locked(func() error {
		if _, err := os.Stat(filepath.Join(s.git.gitDir, "HEAD")); err == nil {
			return nil
		}
		if _, err := s.git.run(ctx, nil, "init", "-q", "--template=", s.git.gitDir); err != nil {
			return fmt.Errorf("checkpoints: create the store: %w", err)
		}
		info := filepath.Join(s.git.gitDir, "info")
		if err := os.MkdirAll(info, 0o700); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		if err := os.WriteFile(filepath.Join(info, "attributes"), []byte(storeAttributes), 0o600); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		// The project path, for people looking at the folder and for `pi checkpoints prune`.
		if err := os.WriteFile(filepath.Join(s.dir, "project"), []byte(s.project+"\n"), 0o600); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		// A new store has nothing to prune: PruneIfDue counts from now.
		if err := os.WriteFile(filepath.Join(s.dir, pruneStamp), nil, 0o600); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		return nil
	})
}

// locked runs fn holding this process's mutex and the store's lock file.
func (s *Store) locked(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockFile(filepath.Join(s.dir, "lock"))
	if err != nil {
		return fmt.Errorf("checkpoints: lock %s: %w", s.dir, err)
	}
	defer unlock()
	return fn()
}

// scanGit is the git of the store's scratch repository, created on first use: its index and history
// stay empty, so git status there lists every file of the project as untracked or ignored. s.mu is held.
func (s *Store) scanGit(ctx context.Context) (*git, error) {
	if s.scan != nil {
		return s.scan, nil
	}
	dir := filepath.Join(s.dir, "scan")
	g := newGit(s.git.path, dir, s.project, filepath.Join(dir, "index"))
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if _, err := g.run(ctx, nil, "init", "-q", "--template=", dir); err != nil {
			return nil, fmt.Errorf("checkpoints: create the scratch repository: %w", err)
		}
	}
	s.scan = g
	return g, nil
}

// errNoCheckpoint is returned for a commit id the store does not hold.
var errNoCheckpoint = errors.New("no such checkpoint")
