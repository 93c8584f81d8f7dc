package tui

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxIndexedFiles bounds the project walk behind @ completion.
const maxIndexedFiles = 50000

// listProjectFiles walks dir for @ completion: files and directories relative to dir (directories end
// in "/"), hidden ones included, .git and what the top-level .gitignore excludes left out, at most
// maxIndexedFiles entries.
func listProjectFiles(ctx context.Context, dir string) []string {
	ignore := readGitignore(filepath.Join(dir, ".gitignore"))
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil || len(out) >= maxIndexedFiles {
			return filepath.SkipAll
		}
		if err != nil || path == dir {
			return nil
		}
		rel, rerr := filepath.Rel(dir, path)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		isDir := d.IsDir()
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				// pi's fd runs with --follow; listing the link itself is enough here.
				out = append(out, rel+"/")
				return nil
			}
		}
		if d.Name() == ".git" || ignored(ignore, rel, isDir) {
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		if isDir {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	return out
}

// gitignoreRule is one line of a .gitignore (negations are not supported and are skipped).
type gitignoreRule struct {
	pattern  string
	dirOnly  bool
	anchored bool
}

func readGitignore(path string) []gitignoreRule {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var rules []gitignoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		r := gitignoreRule{}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if strings.HasPrefix(line, "/") || strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

func ignored(rules []gitignoreRule, rel string, isDir bool) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		target := base
		if r.anchored {
			target = rel
		}
		if ok, _ := doublestar.Match(r.pattern, target); ok {
			return true
		}
	}
	return false
}
