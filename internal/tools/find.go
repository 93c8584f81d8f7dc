package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
)

//go:embed find.md
var findDescription string

const findSchema = `{"type":"object","required":["pattern"],"properties":{` +
	`"pattern":{"type":"string","description":"Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"},` +
	`"path":{"type":"string","description":"Directory to search in (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of results (default: 1000)"}}}`

const findDefaultLimit = 1000

// FindDetails is the find tool's details object; nil when nothing was cut.
type FindDetails struct {
	ResultLimitReached *float64           `json:"resultLimitReached,omitempty"`
	Truncation         *output.Truncation `json:"truncation,omitempty"`
}

// findBackend chooses between fd and the pure-Go walk.
type findBackend int

const (
	findAuto   findBackend = iota // fd (or fdfind) when usable, else pure Go
	findPureGo                    // always pure Go
)

type findTool struct {
	cwd     string
	backend findBackend

	probeOnce sync.Once
	fd        findFd
}

// NewFind returns the find tool, searching relative to cwd. It runs fd (or Debian's fdfind) when it
// is on PATH and a pure-Go walk with the same output otherwise.
func NewFind(cwd string) loop.Tool { return &findTool{cwd: cwd} }

func (t *findTool) Definition() provider.ToolDefinition {
	return toolDefinition("find", findDescription, findSchema)
}

type findArgs struct {
	Pattern string   `json:"pattern"`
	Path    string   `json:"path"`
	Limit   *float64 `json:"limit"`
}

// findRequest is one search.
type findRequest struct {
	searchPath string // absolute, cleaned
	// pattern is what fd is given: pi prefixes "**/" to patterns with a slash (matched against the
	// full path) unless they start with "/" or "**/".
	pattern  string
	fullPath bool
	// limit is --max-results; 0 means none (as fd takes it).
	limit float64
	cwd   string
}

func (t *findTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errSrchAborted
	}
	var args findArgs
	if err := srchDecodeArgs("find", call.Args, &args); err != nil {
		return loop.ToolResult{}, err
	}
	path := args.Path
	if path == "" {
		path = "."
	}
	req := &findRequest{searchPath: ResolvePath(path, t.cwd), pattern: args.Pattern, limit: findDefaultLimit, cwd: t.cwd}
	if args.Limit != nil {
		req.limit = *args.Limit
	}
	if strings.Contains(req.pattern, "/") {
		req.fullPath = true
		if !strings.HasPrefix(req.pattern, "/") && !strings.HasPrefix(req.pattern, "**/") && req.pattern != "**" {
			req.pattern = "**/" + req.pattern
		}
	}
	if req.limit < 0 || req.limit != math.Trunc(req.limit) {
		return loop.ToolResult{}, fmt.Errorf("error: Invalid value '%s' for '--max-results <count>': invalid digit found in string\n\nFor more information try '--help'", srchJSNumber(req.limit))
	}

	var (
		paths []string
		err   error
	)
	if fd := t.fdFor(req.searchPath); fd.path != "" {
		paths, err = findSearchFd(ctx, fd, req)
	} else {
		paths, err = findSearchNative(ctx, req)
	}
	if ctx.Err() != nil {
		return loop.ToolResult{}, errSrchAborted
	}
	if err != nil {
		return loop.ToolResult{}, err
	}
	return findFormat(paths, req.limit), nil
}

// findFormat writes pi's output: one relative path per line, byte truncation and the notices.
func findFormat(paths []string, limit float64) loop.ToolResult {
	if len(paths) == 0 {
		return loop.ToolResult{Content: []provider.Content{provider.TextContent("No files found matching pattern")}}
	}
	var details FindDetails
	var limitNotice string
	if srchCountReached(len(paths), limit) {
		limitNotice = fmt.Sprintf("%s results limit reached. Use limit=%s for more, or refine pattern",
			srchJSNumber(limit), srchJSNumber(limit*2))
		details.ResultLimitReached = &limit
	}
	text, cut, noticed := srchText(paths, limitNotice, "")
	details.Truncation = cut
	result := loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
	if noticed {
		result.Details = &details
	}
	return result
}

// findNotADirectory is fd's complaint about a search path that is missing or not a directory.
func findNotADirectory(path string) error {
	return fmt.Errorf("[fd error]: Search path '%s' is not a directory.\n[fd error]: No valid search paths given.", path)
}

// findMatcher matches entries as fd --glob does: against the file name, or with a slash in the
// pattern against the absolute path; smart case (case-insensitive unless the pattern has an upper-case
// letter).
type findMatcher struct {
	all      bool
	none     bool
	fullPath bool
	fold     bool
	rule     giRule
}

func findNewMatcher(req *findRequest) (*findMatcher, error) {
	m := &findMatcher{fullPath: req.fullPath, fold: !findHasUpper(req.pattern)}
	if req.pattern == "" || req.pattern == "**" {
		m.all = true
		return m, nil
	}
	rule, err := findCompileGlob(req.pattern, !req.fullPath)
	if err != nil {
		return nil, fmt.Errorf("[fd error]: error parsing glob '%s': %s", req.pattern, err.Error())
	}
	m.rule = rule
	// fd matches paths without a trailing slash, so "dir/" matches nothing.
	m.none = strings.HasSuffix(req.pattern, "/")
	return m, nil
}

// findCompileGlob compiles a glob with the gitignore machinery, without gitignore's line syntax.
func findCompileGlob(pattern string, basename bool) (giRule, error) {
	rule := giRule{basename: basename}
	alts, err := giExpandBraces(pattern)
	if err != nil {
		return rule, err
	}
	for _, alt := range alts {
		g, err := giCompile(alt, basename)
		if err != nil {
			return rule, err
		}
		rule.alts = append(rule.alts, g)
	}
	return rule, nil
}

func (m *findMatcher) match(e *walkEntry) bool {
	if m.all || m.none {
		return m.all
	}
	subject := e.name
	if m.fullPath {
		subject = e.abs
	}
	if m.fold {
		subject = strings.ToLower(subject)
	}
	if m.rule.basename {
		return m.rule.matches(subject, subject)
	}
	return m.rule.matches(subject, "")
}

func findHasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// findSearchNative walks searchPath as `fd --glob --hidden --no-require-git` does (minus .git) and
// returns the matching paths relative to it, directories with a trailing "/", in sorted order.
func findSearchNative(ctx context.Context, req *findRequest) ([]string, error) {
	if st, err := os.Stat(req.searchPath); err != nil || !st.IsDir() {
		return nil, findNotADirectory(req.searchPath)
	}
	m, err := findNewMatcher(req)
	if err != nil {
		return nil, err
	}
	opts := &walkOptions{
		customIgnore: ".fdignore",
		globalGit:    walkLoadGlobal(walkGlobalGitExcludes(), req.cwd),
		globalIgnore: walkLoadGlobal(findGlobalIgnore(), req.cwd),
	}
	var paths []string
	err = walkTree(ctx, req.searchPath, opts, func(e *walkEntry) bool {
		if !m.match(e) {
			return true
		}
		rel := findRel(req.searchPath, e.abs)
		if e.kind == walkDir {
			rel += "/"
		}
		paths = append(paths, rel)
		return req.limit <= 0 || float64(len(paths)) < req.limit
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	return paths, nil
}

// findRel is path relative to root (forward slashes).
func findRel(root, path string) string {
	if root == "/" {
		return strings.TrimPrefix(path, "/")
	}
	if strings.HasPrefix(path, root+"/") {
		return path[len(root)+1:]
	}
	if rel, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// findGlobalIgnore is fd's own global ignore file ($XDG_CONFIG_HOME/fd/ignore).
func findGlobalIgnore() string {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		xdg = home + "/.config"
	}
	return xdg + "/fd/ignore"
}
