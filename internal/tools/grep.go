package tools

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	`"glob":{"type":"string","description":"Filter files by glob pattern relative to path, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},` +
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
	// As pi 1.6: the glob is rooted at the searched directory (rg runs there), and a leading "./",
	// which rg never matches, is dropped (after a "!" too).
	if req.IsDir {
		req.Cwd = req.Path
	}
	neg := strings.HasPrefix(req.Glob, "!")
	rest := strings.TrimPrefix(req.Glob, "!")
	for strings.HasPrefix(rest, "./") {
		rest = rest[2:]
	}
	if neg {
		rest = "!" + rest
	}
	req.Glob = rest
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

// grepFormat writes pi 1.6's output: "path:n: line" for matches, "path-n- line" for context lines
// (each line once, in order, as ripgrep's context events give them: the windows of nearby matches
// merge, a match inside another's window is shown as a match, and no line is made up past the end
// of the file), byte truncation and the notices.
func grepFormat(matches []search.Match, req *search.GrepRequest, contextLines int, reached bool) loop.ToolResult {
	if len(matches) == 0 && !reached {
		return loop.ToolResult{Content: []provider.Content{provider.TextContent("No matches found")}}
	}
	var (
		out            []string
		linesTruncated bool
		cache          grepLineCache
	)
	emit := func(rel string, line int, text string, isMatch bool) {
		cut, was := output.TruncateLine(grepLineText(text), grepMaxLineLength)
		linesTruncated = linesTruncated || was
		if isMatch {
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, line, cut))
		} else {
			out = append(out, fmt.Sprintf("%s-%d- %s", rel, line, cut))
		}
	}
	for i := 0; i < len(matches); {
		j := i + 1
		for j < len(matches) && matches[j].Path == matches[i].Path {
			j++
		}
		file := matches[i:j]
		i = j
		rel := grepDisplayPath(file[0].Path, req)
		lines, ok := []string(nil), true
		if contextLines > 0 || slices.ContainsFunc(file, func(m search.Match) bool { return m.Text == nil }) {
			lines, ok = cache.lines(file[0].Path)
		}
		if contextLines == 0 {
			for _, m := range file {
				switch {
				case m.Text != nil:
					emit(rel, m.Line, *m.Text, true)
				case ok && m.Line-1 < len(lines):
					emit(rel, m.Line, lines[m.Line-1], true)
				default:
					out = append(out, fmt.Sprintf("%s:%d: (unable to read file)", rel, m.Line))
				}
			}
			continue
		}
		if !ok {
			for _, m := range file {
				out = append(out, fmt.Sprintf("%s:%d: (unable to read file)", rel, m.Line))
			}
			continue
		}
		isMatch := make(map[int]bool, len(file))
		for _, m := range file {
			isMatch[m.Line] = true
		}
		next := 1 // the first line not yet written
		for _, m := range file {
			end := min(len(lines), m.Line+contextLines)
			for cur := max(next, m.Line-contextLines); cur <= end; cur++ {
				emit(rel, cur, lines[cur-1], isMatch[cur])
			}
			next = max(next, end+1)
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

// lines reads a file's lines as ripgrep reports them (pi 1.6 takes context lines from its events):
// UTF-8 with replacement, split at "\n" only (a lone CR is content), no empty line after a final
// newline.
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
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	c.cached, c.ok = lines, true
	return c.cached, true
}

// grepLineText is a line as pi 1.6 shows it: without its terminator ("\n" or "\r\n"); a lone CR
// inside it stays.
func grepLineText(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
