package harness

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
)

// shadowedContextFile is the main checkout's context file that a linked git worktree nested inside
// it shadows with its own (pi 1.6's findShadowedContextFile): both are the same repository's
// instructions, so only the worktree's is loaded. "" when nothing is shadowed: an ordinary checkout,
// a worktree beside its main checkout, a bare layout, a submodule. The path is canonical.
func shadowedContextFile(cwd string) string {
	worktree, commonGitDir, ok := findGitPaths(filepath.Clean(cwd))
	if !ok {
		return ""
	}
	commonGitDir = config.CanonicalPath(commonGitDir)
	worktree = config.CanonicalPath(worktree)
	mainRoot := filepath.Dir(commonGitDir)
	if worktree == mainRoot || !strings.HasPrefix(worktree, strings.TrimSuffix(mainRoot, string(filepath.Separator))+string(filepath.Separator)) {
		return ""
	}
	if config.CanonicalPath(filepath.Join(mainRoot, ".git")) != commonGitDir {
		return ""
	}
	f, err := contextFileIn(worktree)
	if err != nil || f == nil {
		return ""
	}
	return filepath.Join(mainRoot, filepath.Base(f.Path))
}

// findGitPaths finds the checkout containing dir: its root and its common git directory (the main
// checkout's .git for a linked worktree, whose .git is a file "gitdir: <path>").
func findGitPaths(dir string) (repoDir, commonGitDir string, ok bool) {
	for {
		gitPath := filepath.Join(dir, ".git")
		if info, err := os.Stat(gitPath); err == nil {
			if info.IsDir() {
				if _, err := os.Stat(filepath.Join(gitPath, "HEAD")); err != nil {
					return "", "", false
				}
				return dir, gitPath, true
			}
			data, err := os.ReadFile(gitPath)
			if err != nil {
				return "", "", false
			}
			content := strings.TrimSpace(string(data))
			if !strings.HasPrefix(content, "gitdir: ") {
				return "", "", false
			}
			gitDir := resolveFrom(dir, strings.TrimSpace(content[len("gitdir: "):]))
			if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
				return "", "", false
			}
			common := gitDir
			if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				common = resolveFrom(gitDir, strings.TrimSpace(string(data)))
			}
			return dir, common, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

func resolveFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// isShadowed reports whether the context file at path, found in dir, is the shadowed one; the
// directory's real path is compared, not the file's, so a worktree file that links to the main
// checkout's still counts as the worktree's.
func isShadowed(dir, path, shadowed string) bool {
	return shadowed != "" && filepath.Join(config.CanonicalPath(dir), filepath.Base(path)) == shadowed
}
