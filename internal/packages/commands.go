package packages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// run runs a command with its output going to the manager's writers, as pi lets npm and git write to
// the terminal. A command that is not installed is named in the error, with what needs it.
func (m *Manager) run(ctx context.Context, dir, what string, name string, args ...string) error {
	env := m.env()
	path, err := lookPath(name, env)
	if err != nil {
		return commandError(name, args, what, err, "")
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name
	cmd.Dir = dir
	cmd.Env = env
	// Without writers (a -e install at start, with a screen to keep clean) the output's end goes into
	// the error instead.
	var captured tailBuffer
	if m.Stdout == nil && m.Stderr == nil {
		cmd.Stdout, cmd.Stderr = &captured, &captured
	} else {
		cmd.Stdout, cmd.Stderr = orDiscard(m.Stdout), orDiscard(m.Stderr)
	}
	cmd.WaitDelay = 5 * time.Second // a child that keeps the pipes open does not hold us
	if err := cmd.Run(); err != nil {
		return commandError(name, args, what, err, strings.TrimSpace(captured.String()))
	}
	return nil
}

// capture runs a command and returns its trimmed standard output.
func (m *Manager) capture(ctx context.Context, dir string, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	env := m.env()
	path, err := lookPath(name, env)
	if err != nil {
		return "", commandError(name, args, "", err, "")
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", commandError(name, args, "", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

func (m *Manager) env() []string {
	env := m.Env
	if env == nil {
		env = os.Environ()
	}
	// git must fail rather than ask for a password it cannot read from here.
	return append(env[:len(env):len(env)], "GIT_TERMINAL_PROMPT=0")
}

// lookPath finds a command on the PATH of env (the one the command will run with), not this
// process's.
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// tailBuffer keeps the last 8000 bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8000 {
		t.b = t.b[len(t.b)-8000:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func commandError(name string, args []string, what string, err error, output string) error {
	if errors.Is(err, exec.ErrNotFound) {
		need := ""
		if what != "" {
			need = " (needed to install " + what + ")"
		}
		hint := "install Node.js with npm, or set npmCommand in settings.json"
		if name == "git" {
			hint = "install git"
		}
		return fmt.Errorf("%s is not installed or not on PATH%s: %s: %w", name, need, hint, err)
	}
	msg := fmt.Sprintf("%s %s failed", name, strings.Join(args, " "))
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		msg = fmt.Sprintf("%s with code %d", msg, exit.ExitCode())
	}
	if output != "" {
		msg += ": " + output
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// npmArgv is the npmCommand setting (or "npm") with args after it.
func (m *Manager) npmArgv(args ...string) (string, []string) {
	if len(m.NpmCommand) > 0 && m.NpmCommand[0] != "" {
		return m.NpmCommand[0], append(append([]string(nil), m.NpmCommand[1:]...), args...)
	}
	return "npm", args
}

func (m *Manager) npm(ctx context.Context, dir string, args ...string) error {
	name, argv := m.npmArgv(args...)
	return m.run(ctx, dir, "npm packages", name, argv...)
}

// installNpm installs specs into the scope's npm project, creating it first. Peer dependencies are
// not resolved (pi supplies its own packages to extensions), as pi does.
func (m *Manager) installNpm(ctx context.Context, specs []string, scope Scope) error {
	root := m.Dirs.NpmRoot(scope)
	if err := ensureNpmProject(root); err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // npm writes broken nested lock file paths through a symlinked prefix
	}
	args := append([]string{"install"}, specs...)
	args = append(args, "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund")
	return m.npm(ctx, "", args...)
}

func ensureNpmProject(root string) error {
	if err := ensureGitIgnore(root); err != nil {
		return err
	}
	pkg := filepath.Join(root, "package.json")
	if _, err := os.Stat(pkg); err == nil {
		return nil
	}
	if err := os.WriteFile(pkg, []byte("{\n  \"name\": \"pi-extensions\",\n  \"private\": true\n}"), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", pkg, err)
	}
	return nil
}

// ensureGitIgnore keeps installed packages out of the user's repositories (pi's .gitignore).
func ensureGitIgnore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.WriteFile(p, []byte("*\n!.gitignore\n"), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	return nil
}

// installGit clones a repository into the scope's git directory and checks out its ref, then
// installs its npm dependencies when it has a package.json; a checkout that is already there is
// brought to the ref instead. A failed clone leaves nothing behind.
func (m *Manager) installGit(ctx context.Context, src Source, scope Scope) error {
	dir, err := m.Dirs.InstallPath(src, scope)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err == nil {
		return m.updateGit(ctx, src, scope)
	}
	root := m.Dirs.GitRoot(scope)
	if err := ensureGitIgnore(root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	os.Remove(updateMarker(dir))
	err = func() error {
		if err := m.run(ctx, "", src.Raw, "git", "clone", src.Repo, dir); err != nil {
			return err
		}
		if src.Ref != "" {
			if err := m.run(ctx, dir, src.Raw, "git", "checkout", src.Ref); err != nil {
				return err
			}
		}
		return m.installGitDependencies(ctx, dir)
	}()
	if err != nil {
		os.RemoveAll(dir)
		pruneEmptyParents(dir, root)
	}
	return err
}

func (m *Manager) installGitDependencies(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		return nil
	}
	return m.npm(ctx, dir, "install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund")
}

// updateGit fetches the configured ref (or the upstream branch) and resets the checkout to it,
// cleaning untracked files and reinstalling dependencies when the commit changed. A marker file
// beside the checkout remembers an update that did not finish, so the next one cleans again.
func (m *Manager) updateGit(ctx context.Context, src Source, scope Scope) error {
	dir, err := m.Dirs.InstallPath(src, scope)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return m.installGit(ctx, src, scope)
	}
	fetch, ref := []string{"fetch", "origin", src.Ref}, "FETCH_HEAD"
	if src.Ref == "" {
		fetch, ref = m.upstreamTarget(ctx, dir)
	}
	if err := m.run(ctx, dir, src.Raw, "git", fetch...); err != nil {
		return err
	}
	local, err := m.capture(ctx, dir, "git", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	target, err := m.capture(ctx, dir, "git", "rev-parse", ref+"^{commit}")
	if err != nil {
		return err
	}
	marker := updateMarker(dir)
	if local == target {
		if _, err := os.Stat(marker); err != nil {
			return nil
		}
	} else {
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			return fmt.Errorf("create %s: %w", marker, err)
		}
		if err := m.run(ctx, dir, src.Raw, "git", "reset", "--hard", ref+"^{commit}"); err != nil {
			return err
		}
	}
	if err := m.run(ctx, dir, src.Raw, "git", "clean", "-fdx"); err != nil {
		return err
	}
	if err := m.installGitDependencies(ctx, dir); err != nil {
		return err
	}
	os.Remove(marker)
	return nil
}

// upstreamTarget is what an unpinned checkout follows: its upstream branch, else origin's HEAD.
func (m *Manager) upstreamTarget(ctx context.Context, dir string) (fetch []string, ref string) {
	if up, err := m.capture(ctx, dir, "git", "rev-parse", "--abbrev-ref", "@{upstream}"); err == nil {
		if branch, ok := strings.CutPrefix(up, "origin/"); ok && branch != "" {
			return []string{"fetch", "--prune", "--no-tags", "origin", "+refs/heads/" + branch + ":refs/remotes/origin/" + branch}, "@{upstream}"
		}
	}
	return []string{"fetch", "--prune", "--no-tags", "origin", "+HEAD:refs/remotes/origin/HEAD"}, "origin/HEAD"
}

func (m *Manager) gitHead(ctx context.Context, dir string) string {
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	head, err := m.capture(ctx, dir, "git", "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return head
}

func updateMarker(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".pi-update-incomplete")
}

// pruneEmptyParents removes the directories left empty between a removed checkout and its root.
func pruneEmptyParents(dir, root string) {
	root = filepath.Clean(root)
	for cur := filepath.Dir(dir); strings.HasPrefix(cur, root+string(filepath.Separator)); cur = filepath.Dir(cur) {
		if os.Remove(cur) != nil { // fails when not empty
			return
		}
	}
}
