package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// ToolStatus is where a tool call is in its life.
type ToolStatus int

const (
	// ToolPending: the call is streaming in or waiting for its batch; arguments may be partial.
	ToolPending ToolStatus = iota
	// ToolRunning: tool_execution_start was seen; Result holds the latest partial result, if any.
	ToolRunning
	// ToolDone: tool_execution_end was seen (or the call was given an error result); Result is final.
	ToolDone
)

// ToolView is everything a tool block shows. The TUI keeps one per tool call and updates it from
// the streaming assistant message and the tool_execution_* events.
type ToolView struct {
	Name string
	// Args is the arguments object (partial while the call streams in: provider repairs it into
	// valid JSON).
	Args   json.RawMessage
	Status ToolStatus
	// Result is the partial (running) or final (done) result; nil before any.
	Result  *loop.ToolResult
	IsError bool
	// Expanded shows the whole output instead of the collapsed preview (pi's Ctrl+O).
	Expanded bool
	// Elapsed is the bash run time, shown as "Elapsed 1.2s" while running and "Took 1.2s" when done;
	// zero hides it.
	Elapsed time.Duration
	// PreviewDiff is an edit's diff computed before it ran (pi's text format), shown until the result
	// brings the real one.
	PreviewDiff string
}

// ToolViewFromMessages builds the finished view of a tool call from a transcript: the assistant's
// toolCall block and its result message (nil when the call never got one).
func ToolViewFromMessages(call provider.Content, result *provider.ToolResultMessage) ToolView {
	v := ToolView{Name: call.Name, Args: call.Arguments, Status: ToolPending}
	if result != nil {
		v.Status = ToolDone
		v.IsError = result.IsError
		v.Result = &loop.ToolResult{Content: result.Content, Details: result.Details}
	}
	return v
}

// Tool renders a tool call block: a full-width box, tinted by status (pending, success, error), with
// pi's header for the tool and its output collapsed to a preview unless expanded.
func (r *Renderer) Tool(v ToolView, width int) []string {
	cw := max(width-2, 1)
	args := parseArgs(v.Args)
	d := r.details(v.Result)
	var body []string
	switch v.Name {
	case "bash":
		body = r.bashTool(v, args, d, cw)
	case "read":
		body = r.readTool(v, args, d, cw)
	case "write":
		body = r.writeTool(v, args, cw)
	case "edit":
		body = r.editTool(v, args, d, cw)
	case "ls", "find", "grep":
		body = r.searchTool(v, args, d, cw)
	default:
		body = r.genericTool(v, cw)
	}
	bg := theme.ToolPendingBg
	if v.Status == ToolDone {
		bg = theme.ToolSuccessBg
		if v.IsError {
			bg = theme.ToolErrorBg
		}
	}
	return append([]string{""}, box(body, width, 1, 1, r.th.BgSeq(bg))...)
}

// ---- arguments ----

// toolArgs is a decoded arguments object; values stay raw so a wrong type can be told from a
// missing value, as pi does ("[invalid arg]").
type toolArgs map[string]json.RawMessage

func parseArgs(raw json.RawMessage) toolArgs {
	var a toolArgs
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &a) != nil {
		return toolArgs{}
	}
	return a
}

// str returns a string argument: ok is false when the value is neither a string nor null/missing.
func (a toolArgs) str(key string) (s string, ok bool) {
	v, present := a[key]
	if !present || string(v) == "null" {
		return "", true
	}
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// has reports whether key is present and not null.
func (a toolArgs) has(key string) bool {
	v, ok := a[key]
	return ok && string(v) != "null"
}

// num returns a numeric argument as written (JSON number text), "" when missing.
func (a toolArgs) num(key string) string {
	v, ok := a[key]
	if !ok || string(v) == "null" {
		return ""
	}
	var f json.Number
	if json.Unmarshal(v, &f) != nil {
		return strings.Trim(string(v), `"`)
	}
	return f.String()
}

// ---- details ----

// toolDetails holds the fields of pi's tool details that the renderers show.
type toolDetails struct {
	Truncation *struct {
		Truncated             bool   `json:"truncated"`
		TruncatedBy           string `json:"truncatedBy"`
		TotalLines            int    `json:"totalLines"`
		OutputLines           int    `json:"outputLines"`
		MaxLines              int    `json:"maxLines"`
		MaxBytes              int    `json:"maxBytes"`
		FirstLineExceedsLimit bool   `json:"firstLineExceedsLimit"`
	} `json:"truncation"`
	FullOutputPath     string          `json:"fullOutputPath"`
	Diff               string          `json:"diff"`
	FirstChangedLine   int             `json:"firstChangedLine"`
	MatchLimitReached  json.RawMessage `json:"matchLimitReached"`
	EntryLimitReached  json.RawMessage `json:"entryLimitReached"`
	ResultLimitReached json.RawMessage `json:"resultLimitReached"`
	LinesTruncated     bool            `json:"linesTruncated"`
}

// details decodes the details of a result once: results are immutable once emitted (loop.Event's
// contract), and a running tool's block is drawn on every frame.
func (r *Renderer) details(res *loop.ToolResult) toolDetails {
	if res == nil || res.Details == nil {
		return toolDetails{}
	}
	r.mu.Lock()
	d, ok := r.detailsCache.get(res)
	r.mu.Unlock()
	if ok {
		return d
	}
	d = decodeDetails(res.Details)
	r.mu.Lock()
	r.detailsCache.put(res, d)
	r.mu.Unlock()
	return d
}

// decodeDetails reads details of any shape (a Go struct from a live tool, a generic map from a
// session file) through their JSON form. Unreadable details show as none.
func decodeDetails(details any) toolDetails {
	var d toolDetails
	if details == nil {
		return d
	}
	data, ok := details.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(details); err != nil {
			return d
		}
	}
	_ = json.Unmarshal(data, &d)
	return d
}

// limitReached reads a "...LimitReached" detail: pi stores the limit (a number); true counts too.
func limitReached(raw json.RawMessage) (string, bool) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null", "false", "0":
		return "", false
	case "true":
		return "", true
	}
	return s, true
}

// ---- shared pieces ----

// textOutput is the text content of a result, cleaned for display, with image placeholders after
// it (pi's getTextOutput).
func textOutput(res *loop.ToolResult) string { return cleanOutput(rawTextOutput(res)) }

// rawTextOutput is textOutput before cleaning.
func rawTextOutput(res *loop.ToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	var images []string
	for _, c := range res.Content {
		switch c.Type {
		case provider.ContentText:
			parts = append(parts, c.Text)
		case provider.ContentImage:
			images = append(images, imagePlaceholder(c))
		}
	}
	out := strings.Join(parts, "\n")
	if len(images) > 0 {
		if out != "" {
			out += "\n"
		}
		out += strings.Join(images, "\n")
	}
	return out
}

// styledLines styles every line with k and wraps it at width.
func (r *Renderer) styledLines(lines []string, k theme.Key, width int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, wrap(r.th.Fg(k, l), width)...)
	}
	return out
}

// headPreview shows the first max lines (all when expanded), then pi's "... (N more lines, key to
// expand)" hint; what names the count ("more lines" or "more lines, T total").
func (r *Renderer) headPreview(lines []string, max int, expanded bool, k theme.Key, width int, total bool) []string {
	show := lines
	if !expanded && len(lines) > max {
		show = lines[:max]
	}
	out := r.styledLines(show, k, width)
	if rest := len(lines) - len(show); rest > 0 {
		what := "more lines"
		if total {
			what += ", " + itoa(len(lines)) + " total"
		}
		out = append(out, wrap(r.moreLines(rest, what), width)...)
	}
	return out
}

// invalidArg is pi's marker for an argument of the wrong type.
func (r *Renderer) invalidArg() string { return r.th.Fg(theme.Error, "[invalid arg]") }

// title is a tool name in the header: bold, in the tool-title colour.
func (r *Renderer) title(s string) string { return r.th.Style(theme.ToolTitle, true, false, s) }

// pathArg renders a path argument pi's way (file_path, else path): shortened, accent; dflt or "..."
// while still empty; marked invalid when not a string.
func (r *Renderer) pathArg(args toolArgs, dflt string) string {
	p, ok := args.path()
	switch {
	case !ok:
		return r.invalidArg()
	case p == "" && dflt != "":
		return r.th.Fg(theme.Accent, r.shortenPath(dflt))
	case p == "":
		return r.th.Fg(theme.ToolOutput, "...")
	}
	return r.th.Fg(theme.Accent, r.shortenPath(oneLine(p)))
}

// path is the file_path argument when present, else path.
func (a toolArgs) path() (string, bool) {
	if a.has("file_path") {
		return a.str("file_path")
	}
	return a.str("path")
}

func trimTrailingEmpty(lines []string) []string {
	end := len(lines)
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return lines[:end]
}

// errorResult is a result that only carries an error text.
func errorResult(text string) *loop.ToolResult {
	return &loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
}
