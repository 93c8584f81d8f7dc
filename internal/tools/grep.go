package tools

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
	"github.com/pi-go/pi-go/internal/tools/search"
)

//go:embed grep.md
var grepDescription string

const grepSchema = `{"type":"object","required":["pattern"],"properties":{` +
	`"pattern":{"type":"string","description":"Search pattern (regex or literal string)"},` +
	`"path":{"type":"string","description":"Directory or file to search (default: current directory)"},` +
	`"glob":{"type":"string","description":"Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},` +
	`"ignoreCase":{"type":"boolean","description":"Case-insensitive search (default: false)"},` +
	`"literal":{"type":"boolean","description":"Treat pattern as literal string instead of regex (default: false)"},` +
	`"context":{"type":"number","description":"Number of lines to show before and after each match (default: 0)"},` +
	`"limit":{"type":"number","description":"Maximum number of matches to return (default: 100)"}}}`

const grepDefaultLimit = 100

// grepMaxLineLength is the longest grep output line before it is cut.
const grepMaxLineLength = 500

// GrepDetails is the grep tool's details object; nil when nothing was cut.
type GrepDetails struct {
	MatchLimitReached *float64           `json:"matchLimitReached,omitempty"`
	Truncation        *output.Truncation `json:"truncation,omitempty"`
	LinesTruncated    bool               `json:"linesTruncated,omitempty"`
}

type grepTool struct {
	cwd     string
	backend search.Backend
}

// NewGrep returns the grep tool, searching relative to cwd. It runs ripgrep when `rg` is on PATH and a
// pure-Go search with the same output otherwise.
func NewGrep(cwd string) loop.Tool { return &grepTool{cwd: cwd} }

func (t *grepTool) Definition() provider.ToolDefinition {
	return toolDefinition("grep", grepDescription, grepSchema)
}

type grepArgs struct {
	Pattern    string   `json:"pattern"`
	Path       string   `json:"path"`
	Glob       string   `json:"glob"`
	IgnoreCase bool     `json:"ignoreCase"`
	Literal    bool     `json:"literal"`
	Context    *float64 `json:"context"`
	Limit      *float64 `json:"limit"`
}

func (t *grepTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args grepArgs
	if err := decodeArgs("grep", call.Args, &args); err != nil {
		return loop.ToolResult{}, err
	}
	path := args.Path
	if path == "" {
		path = "."
	}
	req := &search.GrepRequest{
		Path:       ResolvePath(path, t.cwd),
		Pattern:    args.Pattern,
		Literal:    args.Literal,
		IgnoreCase: args.IgnoreCase,
		Glob:       args.Glob,
		Limit:      grepDefaultLimit,
		Cwd:        t.cwd,
	}
	st, err := os.Stat(req.Path)
	if err != nil {
		return loop.ToolResult{}, fmt.Errorf("Path not found: %s", req.Path)
	}
	req.IsDir = st.IsDir()
	if args.Limit != nil {
		req.Limit = *args.Limit
	}
	req.Limit = math.Max(1, req.Limit)
	contextLines := 0
	if args.Context != nil && *args.Context > 0 {
		contextLines = int(*args.Context)
	}

	matches, reached, err := search.Grep(ctx, req, t.backend)
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	if err != nil {
		return loop.ToolResult{}, err
	}
	return grepFormat(matches, req, contextLines, reached), nil
}

// grepFormat writes pi's output: "path:n: line" for matches, "path-n- line" for context lines, byte
// truncation and the notices.
func grepFormat(matches []search.Match, req *search.GrepRequest, contextLines int, reached bool) loop.ToolResult {
	if len(matches) == 0 && !reached {
		return loop.ToolResult{Content: []provider.Content{provider.TextContent("No matches found")}}
	}
	var (
		out            []string
		linesTruncated bool
		cache          grepLineCache
	)
	for _, m := range matches {
		rel := grepDisplayPath(m.Path, req)
		if contextLines == 0 && m.Text != nil {
			text := strings.ReplaceAll(*m.Text, "\r\n", "\n")
			text = strings.ReplaceAll(text, "\r", "")
			text = strings.TrimSuffix(text, "\n")
			cut, was := output.TruncateLine(text, grepMaxLineLength)
			linesTruncated = linesTruncated || was
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, m.Line, cut))
			continue
		}
		lines, ok := cache.lines(m.Path)
		if !ok {
			out = append(out, fmt.Sprintf("%s:%d: (unable to read file)", rel, m.Line))
			continue
		}
		start, end := m.Line, m.Line
		if contextLines > 0 {
			start = max(1, m.Line-contextLines)
			end = min(len(lines), m.Line+contextLines)
		}
		for cur := start; cur <= end; cur++ {
			text := ""
			if cur-1 < len(lines) {
				text = strings.ReplaceAll(lines[cur-1], "\r", "")
			}
			cut, was := output.TruncateLine(text, grepMaxLineLength)
			linesTruncated = linesTruncated || was
			if cur == m.Line {
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, cur, cut))
			} else {
				out = append(out, fmt.Sprintf("%s-%d- %s", rel, cur, cut))
			}
		}
	}
	var details GrepDetails
	var limitNotice, lineNotice string
	if reached {
		limit := req.Limit
		limitNotice = fmt.Sprintf("%s matches limit reached. Use limit=%s for more, or refine pattern",
			jsNumber(limit), jsNumber(limit*2))
		details.MatchLimitReached = &limit
	}
	if linesTruncated {
		lineNotice = fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", grepMaxLineLength)
		details.LinesTruncated = true
	}
	text, cut, noticed := listText(out, limitNotice, lineNotice)
	details.Truncation = cut
	result := loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
	if noticed {
		result.Details = &details
	}
	return result
}

// grepDisplayPath is the path relative to the searched directory, or the base name when a single
// file was searched (or the path lies outside).
func grepDisplayPath(path string, req *search.GrepRequest) string {
	if req.IsDir {
		if rel, err := filepath.Rel(req.Path, path); err == nil && rel != "" && rel != "." && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// grepLineCache holds the lines of the last file read for context (matches come grouped by file).
type grepLineCache struct {
	path   string
	cached []string
	ok     bool
}

// lines reads a file as pi does for context: UTF-8 with replacement, CRLF and lone CR as breaks.
func (c *grepLineCache) lines(path string) ([]string, bool) {
	if path == c.path {
		return c.cached, c.ok
	}
	c.path = path
	data, err := os.ReadFile(path)
	if err != nil {
		c.cached, c.ok = nil, false
		return nil, false
	}
	text := output.LossyString(data)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	c.cached, c.ok = strings.Split(text, "\n"), true
	return c.cached, true
}
