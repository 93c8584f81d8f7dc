package export

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/yuin/goldmark"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// HTMLOptions tunes WriteHTML.
type HTMLOptions struct {
	Theme Theme
	// SystemPrompt and Tools describe the live session (the TUI and RPC know them; a file does not).
	SystemPrompt string
	Tools        []ToolInfo
	// Now stamps the page ("exported at"); zero means time.Now.
	Now time.Time
}

// ToolInfo names a tool the session's model could call.
type ToolInfo struct {
	Name, Description string
}

// csp forbids every fetch: styles and scripts are inline, images are data: URIs. A page that tried
// to load anything would be refused by the browser, and the browser test asserts that nothing was.
const csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

// WriteHTML writes src as one self-contained HTML page to w. Entries are rendered one at a time in
// file order (messages decoded and dropped); the sidebar tree, which needs every entry's place, is
// written after them from a few bytes kept per entry. ctx cancels between entries.
func WriteHTML(ctx context.Context, w io.Writer, src Source, opts HTMLOptions) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	p := newPage(bw, src, opts)
	p.writeHead()
	for i, e := range src.Entries {
		if i%512 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		p.writeEntry(e)
	}
	p.writeTail()
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the HTML export: %w", err)
	}
	return nil
}

// page is the state of one export: where the page goes, which entries are on the active branch, the
// tool calls waiting for their results, and the tree rows collected on the way.
type page struct {
	w      *bufio.Writer
	src    Source
	opts   HTMLOptions
	md     goldmark.Markdown
	dec    provider.MessageDecoder
	active map[string]bool
	calls  map[string]callInfo // tool calls by id until their result is written
	rows   []treeRow
	labels map[string]string
	name   string
}

// callInfo is what a tool result needs of its call: the tool and the file it worked on.
type callInfo struct {
	name, path, summary string
}

func newPage(w *bufio.Writer, src Source, opts HTMLOptions) *page {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	p := &page{w: w, src: src, opts: opts, md: newMarkdown(), active: map[string]bool{},
		calls: map[string]callInfo{}, labels: map[string]string{}, rows: make([]treeRow, 0, len(src.Entries))}
	for _, e := range src.branch() {
		p.active[e.ID] = true
	}
	for _, e := range src.Entries {
		switch e.Type {
		case session.TypeSessionInfo:
			p.name = e.Name
		case session.TypeLabel:
			if e.Label == "" {
				delete(p.labels, e.TargetID)
			} else {
				p.labels[e.TargetID] = e.Label
			}
		}
	}
	return p
}

func (p *page) str(s string) { p.w.WriteString(s) }
func (p *page) esc(s string) { writeEscaped(p.w, s) }

func (p *page) writeHead() {
	title := "Session " + p.src.Header.ID
	if p.name != "" {
		title = p.name
	}
	p.str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.str(`<meta http-equiv="Content-Security-Policy" content="` + csp + "\">\n")
	p.str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.str("<meta name=\"generator\" content=\"pi-go\">\n<title>")
	p.esc(title)
	p.str("</title>\n<style>")
	p.str(p.opts.Theme.cssVars())
	p.str("\n")
	p.str(pageCSS)
	p.str("</style>\n</head>\n<body>\n<main id=\"transcript\">\n")
	p.writeSessionHeader(title)
	p.str("<div id=\"entries\">\n")
}

// writeSessionHeader writes the title card: the session's id, directory, dates and totals. Totals
// come from the entries' usage, which the session store keeps without decoding messages.
func (p *page) writeSessionHeader(title string) {
	var total provider.Usage
	messages := 0
	for _, e := range p.src.Entries {
		if u, ok := e.Usage(); ok {
			total.Add(u)
		}
		if e.Type == session.TypeMessage {
			messages++
		}
	}
	h := p.src.Header
	p.str("<header id=\"session-header\" class=\"card\">\n<h1>")
	p.esc(title)
	p.str("</h1>\n<dl>")
	p.field("Session", h.ID)
	if h.Cwd != "" {
		p.field("Directory", h.Cwd)
	}
	if h.Timestamp != "" {
		p.field("Started", h.Timestamp)
	}
	p.field("Exported", p.opts.Now.UTC().Format("2006-01-02T15:04:05Z"))
	p.field("Entries", strconv.Itoa(len(p.src.Entries))+" ("+strconv.Itoa(messages)+" messages, "+strconv.Itoa(len(p.active))+" on the active branch)")
	p.field("Tokens", "↑"+groupThousands(total.Input)+" ↓"+groupThousands(total.Output)+" R"+groupThousands(total.CacheRead)+" W"+groupThousands(total.CacheWrite))
	p.field("Cost", formatCost(total.Cost.Total))
	p.str("</dl>\n")
	p.str("<div id=\"controls\"><button type=\"button\" data-toggle=\"show-all\">Show all branches</button>" +
		"<button type=\"button\" data-toggle=\"hide-thinking\">Hide thinking</button>" +
		"<button type=\"button\" data-toggle=\"expand-tools\">Expand tool output</button></div>\n")
	if p.opts.SystemPrompt != "" {
		p.str("<details class=\"sysprompt\"><summary>System prompt</summary><pre>")
		p.esc(p.opts.SystemPrompt)
		p.str("</pre></details>\n")
	}
	if len(p.opts.Tools) > 0 {
		p.str("<details class=\"tools\"><summary>Tools (" + strconv.Itoa(len(p.opts.Tools)) + ")</summary><dl>")
		for _, t := range p.opts.Tools {
			p.field(t.Name, t.Description)
		}
		p.str("</dl></details>\n")
	}
	p.str("</header>\n")
}

func (p *page) field(name, value string) {
	p.str("<dt>")
	p.esc(name)
	p.str("</dt><dd>")
	p.esc(value)
	p.str("</dd>")
}

func (p *page) writeTail() {
	p.str("</div>\n</main>\n")
	p.writeTree()
	p.str("<script>\n")
	p.str(pageJS)
	p.str("</script>\n</body>\n</html>\n")
}

func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func formatCost(c float64) string { return "$" + strconv.FormatFloat(c, 'f', 4, 64) }
