package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ErrGitMissing is returned by Open when no git binary can be found: checkpoints are then off.
var ErrGitMissing = errors.New("checkpoints are off: the git binary was not found on PATH (install git to enable rewind)")

// gitConfig are the -c flags of every command: they make the store independent of whatever
// configuration git could still find (a repository-level file is the store's own), and fast.
var gitConfig = []string{
	"core.hooksPath=/dev/null",
	"core.logAllRefUpdates=false",
	"core.autocrlf=false",
	"core.safecrlf=false",
	"core.fileMode=true",
	"core.symlinks=true",
	"core.quotePath=false",
	"core.precomposeUnicode=false",
	"core.fsmonitor=false",
	"core.untrackedCache=true",
	"core.excludesFile=/dev/null", // ignore queries name the user's file instead (excludes.go)
	"core.bigFileThreshold=512m",
	"advice.addEmbeddedRepo=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"commit.gpgSign=false",
	"status.showUntrackedFiles=all",
	"status.renames=false",
	"diff.renames=false",
	"diff.external=",
	"color.ui=false",
	"i18n.logOutputEncoding=UTF-8",
}

// git runs the git binary against one store.
type git struct {
	path     string // the git binary
	gitDir   string
	workTree string
	index    string
	env      []string
}

func newGit(binary, gitDir, workTree, index string) *git {
	g := &git{path: binary, gitDir: gitDir, workTree: workTree, index: index}
	g.env = scrubbedEnv(os.Environ(), gitDir, workTree, index)
	return g
}

// scrubbedEnv is environ (workTree "": none) without any GIT_* variable (a user's GIT_DIR, GIT_INDEX_FILE or
// GIT_OBJECT_DIRECTORY would point our commands at their repository) plus the store's own.
func scrubbedEnv(environ []string, gitDir, workTree, index string) []string {
	env := make([]string, 0, len(environ)+12)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "LC_ALL" {
			continue
		}
		env = append(env, kv)
	}
	if workTree != "" {
		env = append(env, "GIT_WORK_TREE="+workTree)
	}
	return append(env,
		"GIT_DIR="+gitDir,
		"GIT_INDEX_FILE="+index,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=1",
		"GIT_AUTHOR_NAME=pi-go",
		"GIT_AUTHOR_EMAIL=pi-go@localhost",
		"GIT_COMMITTER_NAME=pi-go",
		"GIT_COMMITTER_EMAIL=pi-go@localhost",
		"LC_ALL=C",
	)
}

// run runs one git command in the work tree with stdin (may be nil) and returns its standard output.
// A failure is returned with git's own message.
func (g *git) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	return g.runEnv(ctx, nil, stdin, args...)
}

// runEnv is run with extra environment variables (later ones win).
func (g *git) runEnv(ctx context.Context, extra []string, stdin io.Reader, args ...string) ([]byte, error) {
	full := make([]string, 0, 2*len(gitConfig)+len(args))
	for _, c := range gitConfig {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.path, full...)
	cmd.Dir = g.workTree
	if cmd.Dir == "" {
		cmd.Dir = g.gitDir // maintenance of a store whose project may be gone
	}
	cmd.Env = g.env
	if len(extra) > 0 {
		cmd.Env = append(append([]string(nil), g.env...), extra...)
	}
	cmd.Stdin = stdin
	killGroupOnCancel(cmd)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", subcommand(args), msg)
	}
	return out.Bytes(), nil
}

// runLine is run for commands that print one line (an object id).
func (g *git) runLine(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	out, err := g.run(ctx, stdin, args...)
	return strings.TrimSpace(string(out)), err
}

// nulList joins paths for a -z --stdin command.
func nulList(paths []string) io.Reader {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return &b
}

// splitNul splits -z output into its fields, dropping the empty one after the last NUL.
func splitNul(out []byte) []string {
	if len(out) == 0 {
		return nil
	}
	fields := strings.Split(string(out), "\x00")
	if fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	return fields
}

// subcommand is git's command among args (after any -c options), for messages.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}
