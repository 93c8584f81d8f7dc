package tools

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
	"github.com/pi-go/pi-go/internal/tools/search"
)

//go:embed find.md
var findDescription string

const findSchema = `{"type":"object","required":["pattern"],"properties":{` +
	`"pattern":{"type":"string","description":"Glob pattern relative to the search directory, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},` +
	`"path":{"type":"string","description":"Directory to search in (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of results (default: 1000)"}}}`

const findDefaultLimit = 1000

// FindDetails is the find tool's details object; nil when nothing was cut.
type FindDetails struct {
	ResultLimitReached *float64           `json:"resultLimitReached,omitempty"`
	Truncation         *output.Truncation `json:"truncation,omitempty"`
}

type findTool struct {
	cwd    string
	finder *search.Finder
}

// NewFind returns the find tool, searching relative to cwd. It runs fd (or Debian's fdfind) when it
// is on PATH and a pure-Go walk with the same output otherwise.
func NewFind(cwd string) loop.Tool { return newFindTool(cwd, search.Auto) }

func newFindTool(cwd string, backend search.Backend) *findTool {
	return &findTool{cwd: cwd, finder: search.NewFinder(backend)}
}

func (t *findTool) Definition() provider.ToolDefinition {
	return toolDefinition("find", findDescription, findSchema)
}

type findArgs struct {
	Pattern string   `json:"pattern"`
	Path    string   `json:"path"`
	Limit   *float64 `json:"limit"`
}

func (t *findTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args findArgs
	if err := decodeArgs("find", call.Args, &args); err != nil {
		return loop.ToolResult{}, err
	}
	path := args.Path
	if path == "" {
		path = "."
	}
	req := &search.FindRequest{Path: ResolvePath(path, t.cwd), Pattern: args.Pattern, Limit: findDefaultLimit, Cwd: t.cwd}
	if args.Limit != nil {
		req.Limit = *args.Limit
	}
	// As pi 1.6: fd's full paths never contain "/./", so a leading "./" is dropped; a pattern with a
	// slash is matched against the whole path, and a relative one is anchored at the search path
	// ('src/*.ts' finds src/a.ts, not pkg/src/b.ts; '**/src/*.ts' finds both). Smart case follows
	// the user's pattern, not the letters of the search path put before it.
	for strings.HasPrefix(req.Pattern, "./") {
		req.Pattern = req.Pattern[2:]
	}
	if strings.Contains(req.Pattern, "/") {
		req.FullPath = true
		if !filepath.IsAbs(req.Pattern) {
			req.IgnoreCase = req.Pattern == strings.ToLower(req.Pattern)
			req.Pattern = escapeGlob(strings.TrimRight(req.Path, "/")) + "/" + req.Pattern
		}
	}
	if req.Limit < 0 || req.Limit != math.Trunc(req.Limit) {
		return loop.ToolResult{}, fmt.Errorf("error: Invalid value '%s' for '--max-results <count>': invalid digit found in string\n\nFor more information try '--help'", jsNumber(req.Limit))
	}

	paths, err := t.finder.Find(ctx, req)
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	if err != nil {
		return loop.ToolResult{}, err
	}
	return findFormat(paths, req.Limit), nil
}

// escapeGlob escapes the characters a glob gives meaning to (pi's search-path escape for fd).
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// findFormat writes pi's output: one relative path per line, byte truncation and the notices.
func findFormat(paths []string, limit float64) loop.ToolResult {
	if len(paths) == 0 {
		return loop.ToolResult{Content: []provider.Content{provider.TextContent("No files found matching pattern")}}
	}
	var details FindDetails
	var limitNotice string
	if countReached(len(paths), limit) {
		limitNotice = fmt.Sprintf("%s results limit reached. Use limit=%s for more, or refine pattern",
			jsNumber(limit), jsNumber(limit*2))
		details.ResultLimitReached = &limit
	}
	text, cut, noticed := listText(paths, limitNotice, "")
	details.Truncation = cut
	result := loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
	if noticed {
		result.Details = &details
	}
	return result
}
