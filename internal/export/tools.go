package export

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/syntax"
)

// Long output is shown as its first previewLines lines (at most previewBytes) with the rest in a
// closed <details>: the browser does not lay out closed content, so a transcript of large tool
// results stays quick to open and scroll.
const (
	previewLines = 10
	previewBytes = 4 << 10
	// maxHighlightRest is the largest collapsed remainder still highlighted. Highlighting costs
	// about as much as everything else of the export together and triples the bytes of what it
	// colours, so the large remainder of a long file read (seen only when expanded) stays plain:
	// that keeps a 50 MB session's export within two seconds and its page quick to open.
	maxHighlightRest = 8 << 10
)

// writeToolCall writes a tool call the way pi's export shows the built-in tools (a command, a
// path, the written file) and any other tool as its arguments, and remembers what its result needs.
func (p *page) writeToolCall(c provider.Content) {
	args := jsonObject(c.Arguments)
	info := callInfo{name: c.Name}
	p.str(`<div class="call" data-call="`)
	p.esc(c.ID)
	p.str(`"><span class="tool-name">`)
	p.esc(c.Name)
	p.str("</span> ")
	switch c.Name {
	case "bash":
		cmd := strArg(args, "command")
		info.summary = "$ " + clip(cmd, 80)
		p.str(`<pre class="cmd">$ `)
		writeCode(p.w, cmd, "bash")
		p.str("</pre>")
	case "read", "write", "edit", "ls", "find", "grep":
		info.path = strArg(args, "path", "file_path")
		target := info.path
		if pat := strArg(args, "pattern"); pat != "" {
			target = pat + " " + info.path
		}
		if off, ok := args["offset"].(float64); ok {
			target += ":" + strconv.Itoa(int(off))
			if lim, ok := args["limit"].(float64); ok {
				target += "-" + strconv.Itoa(int(off+lim-1))
			}
		}
		info.summary = clip(target, 80)
		p.str(`<span class="path">`)
		p.esc(target)
		p.str("</span>")
		if c.Name == "write" {
			p.writeOutput(strArg(args, "content"), syntax.LanguageForPath(info.path))
		}
	default:
		pretty, err := json.MarshalIndent(args, "", "  ")
		if args == nil || err != nil {
			pretty = c.Arguments
		}
		info.summary = clip(string(c.Arguments), 80)
		p.writeOutput(string(pretty), "json")
	}
	p.str("</div>")
	p.calls[c.ID] = info
}

func (p *page) writeToolResult(m *provider.ToolResultMessage) string {
	info, ok := p.calls[m.ToolCallID]
	delete(p.calls, m.ToolCallID)
	if !ok {
		info = callInfo{name: m.ToolName}
	}
	p.str(`<div class="who`)
	if m.IsError {
		p.str(" err")
	}
	p.str(`"><span class="tool-name">`)
	p.esc(m.ToolName)
	p.str("</span> ")
	p.esc(info.summary)
	if m.IsError {
		p.str(` <span class="note">error</span>`)
	}
	p.str("</div>")
	if diff := detailString(m.Details, "diff"); diff != "" && !m.IsError {
		p.writeDiff(diff)
		return m.ToolName + " " + info.summary
	}
	lang := ""
	if m.ToolName == "read" && !m.IsError {
		lang = syntax.LanguageForPath(info.path)
	}
	for _, c := range m.Content {
		switch c.Type {
		case provider.ContentText:
			p.writeOutput(c.Text, lang)
		case provider.ContentImage:
			p.image(c)
		}
	}
	return m.ToolName + " " + info.summary
}

func (p *page) writeDiff(diff string) {
	if strings.Count(diff, "\n") < 60 {
		writeDiff(p.w, diff)
		return
	}
	p.str(`<details class="more"><summary>diff (` + strconv.Itoa(strings.Count(diff, "\n")+1) + " lines)</summary>")
	writeDiff(p.w, diff)
	p.str("</details>")
}

// detailString is a string field of a tool result's details object ("" when absent).
func detailString(details any, key string) string {
	if m, ok := details.(map[string]any); ok {
		s, _ := m[key].(string)
		return s
	}
	return ""
}

func (p *page) writeBash(m *provider.BashExecutionMessage) string {
	p.who("Shell", m.Timestamp)
	p.str(`<pre class="cmd">$ `)
	writeCode(p.w, m.Command, "bash")
	p.str("</pre>")
	p.writeOutput(m.Output, "")
	var notes []string
	if m.ExitCode != nil && *m.ExitCode != 0 {
		notes = append(notes, "exit code "+strconv.Itoa(*m.ExitCode))
	}
	if m.Cancelled {
		notes = append(notes, "cancelled")
	}
	if m.Truncated {
		notes = append(notes, "output truncated")
	}
	if m.ExcludeFromContext {
		notes = append(notes, "not sent to the model")
	}
	if len(notes) > 0 {
		p.str(`<div class="note">`)
		p.esc(strings.Join(notes, " · "))
		p.str("</div>")
	}
	return "$ " + m.Command
}

// writeOutput writes tool output: short output whole, long output as a preview and the rest
// collapsed.
func (p *page) writeOutput(text, lang string) {
	if text == "" {
		return
	}
	cut := previewCut(text)
	p.str(`<pre class="out">`)
	writeCode(p.w, text[:cut], lang)
	p.str("</pre>")
	if cut == len(text) {
		return
	}
	rest := text[cut:]
	if len(rest) > maxHighlightRest {
		lang = ""
	}
	// The remainder is carried as the text of an inert script element and turned into the <pre>'s
	// content when the reader opens it (page.js): the browser scans script text without building
	// anything, so a transcript of long outputs parses in a fraction of the time. The escaped
	// markup can hold no "</script" or "<!--": every "<" of the output is escaped.
	p.str(`<details class="more"><summary>`)
	p.str(strconv.Itoa(strings.Count(rest, "\n")+1) + " more lines (" + strconv.Itoa(len(rest)) + " bytes)")
	p.str(`</summary><pre class="out"></pre><script type="text/x-pi-more">`)
	writeCode(p.w, rest, lang)
	p.str("</script></details>")
}

// previewCut is where the preview of text ends: after previewLines lines or previewBytes bytes,
// on a character boundary.
func previewCut(text string) int {
	at := 0
	for range previewLines {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			at = len(text)
			break
		}
		at += i + 1
	}
	if at > previewBytes {
		at = previewBytes
		for at > 0 && !utf8.RuneStart(text[at]) {
			at--
		}
	}
	if at >= len(text)-1 { // nothing but a final newline would be left
		return len(text)
	}
	return at
}
