package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// globalExcludes is the user's global excludes file, as git finds it: core.excludesFile from the
// user's global or system git configuration (with ~ expanded, relative to the project when relative),
// else $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore. It is looked up once per Store (one
// git process, at the first snapshot); a snapshot then only compares the file's stat with the one
// the manifest recorded. s.mu is held.
func (s *Store) globalExcludes(ctx context.Context) string {
	if s.excludesKnown {
		return s.excludes
	}
	s.excludes, s.excludesKnown = s.findGlobalExcludes(ctx), true
	return s.excludes
}

func (s *Store) findGlobalExcludes(ctx context.Context) string {
	user := s.userEnv
	lookup := func(name string) string {
		for i := len(user) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(user[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
	// The store's environment with the user's choice of configuration files put back; GIT_DIR names
	// the store's repository so that no repository is searched for from the working directory.
	env := make([]string, 0, len(s.git.env)+3)
	for _, kv := range s.git.env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=") && !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			env = append(env, kv)
		}
	}
	for _, name := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"} {
		if v := lookup(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	cmd := exec.CommandContext(ctx, s.git.path, "config", "--includes", "--get", "--path", "core.excludesFile")
	cmd.Dir, cmd.Env = s.dir, env
	out, err := cmd.Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.project, p) // git reads it from the top of the work tree
		}
		return p
	}
	// Unset (git exits with 1), or a configuration git cannot read: git's default file. A broken
	// configuration file must not stop snapshots; the default is what git would use without it.
	if xdg := lookup("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "git", "ignore")
	}
	if home := lookup("HOME"); home != "" {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}

// excludesState is what a snapshot compares to tell the global excludes file unchanged: its path
// and stat (zero when it is absent). A file changed within the racy window gets a stat no file has,
// so the next snapshot asks again.
func (sc *scan) excludesState(ctx context.Context) (string, fileStat) {
	p := sc.s.globalExcludes(ctx)
	if p == "" {
		return "", fileStat{}
	}
	st, _, _, err := statPath(p)
	if err != nil {
		return p, fileStat{}
	}
	if max(st.mtime, st.ctime) >= sc.start.Add(-sc.s.racyWindow).UnixNano() {
		st.size = -1
	}
	return p, st
}

// excludesConfig is the -c option that applies the global excludes file to an ignore query.
func excludesConfig(p string) string {
	if p == "" {
		p = os.DevNull
	}
	return "core.excludesFile=" + p
}
