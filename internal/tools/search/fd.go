package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fdBinary is a usable fd binary. Debian ships it as fdfind; fd before 8.7 lacks --no-require-git.
type fdBinary struct {
	path         string
	noRequireGit bool
}

// fdFor picks fd for a search when it gives pi's results: an fd without --no-require-git would skip
// .gitignore files outside a git repository, so then the pure-Go walk runs instead.
func (f *Finder) fdFor(searchPath string) fdBinary {
	if f.backend == PureGo {
		return fdBinary{}
	}
	f.probeOnce.Do(func() { f.fd = probeFd() })
	if f.fd.path == "" || (!f.fd.noRequireGit && !findInGitRepo(searchPath)) {
		return fdBinary{}
	}
	return f.fd
}

// probeFd looks for fd or fdfind on PATH and checks whether it knows --no-require-git.
func probeFd() fdBinary {
	for _, name := range []string{"fd", "fdfind"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = exec.CommandContext(ctx, p, "--no-require-git", "--version").Run()
		cancel()
		return fdBinary{path: p, noRequireGit: err == nil}
	}
	return fdBinary{}
}

// findInGitRepo reports whether dir or one of its parents holds .git.
func findInGitRepo(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// findWithFd runs fd as pi does, excluding .git like the pure-Go walk, and returns the paths
// relative to the search path in sorted order (fd's parallel order is arbitrary).
func findWithFd(ctx context.Context, fd fdBinary, req *FindRequest) ([]string, error) {
	args := []string{"--glob", "--color=never", "--hidden"}
	if fd.noRequireGit {
		args = append(args, "--no-require-git")
	}
	args = append(args, "--max-results", strconv.FormatFloat(req.Limit, 'f', -1, 64))
	if req.FullPath {
		args = append(args, "--full-path")
	}
	if req.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	args = append(args, "--exclude", ".git", "--", req.Pattern, req.Path)
	cmd := exec.Command(fd.path, args...)
	if st, err := os.Stat(req.Cwd); err == nil && st.IsDir() {
		cmd.Dir = req.Cwd
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("Failed to run fd: %w", err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-stopped:
		}
	}()
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if waitErr != nil && len(lines) == 0 {
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			return nil, waitErr
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("fd exited with code %d", exitErr.ExitCode())
	}
	var paths []string
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			continue
		}
		dir := strings.HasSuffix(line, "/")
		rel := findRel(req.Path, strings.TrimSuffix(line, "/"))
		if dir {
			rel += "/"
		}
		paths = append(paths, rel)
	}
	sort.SliceStable(paths, func(i, j int) bool {
		return comparePaths(strings.TrimSuffix(paths[i], "/"), strings.TrimSuffix(paths[j], "/")) < 0
	})
	return paths, nil
}
