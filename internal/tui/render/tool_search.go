package render

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// searchTool renders ls, find and grep: pi's header, the first lines of the output (20 for ls and
// find, 15 for grep) and the limit notes.
func (r *Renderer) searchTool(v ToolView, args toolArgs, d toolDetails, cw int) []string {
	var head string
	preview := 20
	var warnings []string
	inPath := func() string {
		p, ok := args.str("path")
		if !ok {
			return r.invalidArg()
		}
		if p == "" {
			p = "."
		}
		return r.th.Fg(theme.ToolOutput, " in "+r.shortenPath(oneLine(p)))
	}
	truncated := d.Truncation != nil && d.Truncation.Truncated
	switch v.Name {
	case "ls":
		head = r.title("ls") + " " + r.pathArg(args, ".")
		if lim := args.num("limit"); lim != "" {
			head += r.th.Fg(theme.ToolOutput, " (limit "+lim+")")
		}
		if n, ok := limitReached(d.EntryLimitReached); ok {
			warnings = append(warnings, strings.TrimSpace(n+" entries limit"))
		}
	case "find":
		pattern, ok := args.str("pattern")
		head = r.title("find") + " "
		if ok {
			head += r.th.Fg(theme.Accent, oneLine(pattern))
		} else {
			head += r.invalidArg()
		}
		head += inPath()
		if lim := args.num("limit"); lim != "" {
			head += r.th.Fg(theme.ToolOutput, " (limit "+lim+")")
		}
		if n, ok := limitReached(d.ResultLimitReached); ok {
			warnings = append(warnings, strings.TrimSpace(n+" results limit"))
		}
	case "grep":
		preview = 15
		pattern, ok := args.str("pattern")
		head = r.title("grep") + " "
		if ok {
			head += r.th.Fg(theme.Accent, "/"+oneLine(pattern)+"/")
		} else {
			head += r.invalidArg()
		}
		head += inPath()
		if glob, _ := args.str("glob"); glob != "" {
			head += r.th.Fg(theme.ToolOutput, " ("+oneLine(glob)+")")
		}
		if lim := args.num("limit"); lim != "" {
			head += r.th.Fg(theme.ToolOutput, " limit "+lim)
		}
		if n, ok := limitReached(d.MatchLimitReached); ok {
			warnings = append(warnings, strings.TrimSpace(n+" matches limit"))
		}
	}
	if truncated {
		warnings = append(warnings, formatSize(maxBytes(d.Truncation.MaxBytes))+" limit")
	}
	if v.Name == "grep" && d.LinesTruncated {
		warnings = append(warnings, "some lines truncated")
	}

	out := wrap(head, cw)
	if output := strings.TrimSpace(textOutput(v.Result)); output != "" {
		out = append(out, "")
		out = append(out, r.headPreview(strings.Split(output, "\n"), preview, v.Expanded, theme.ToolOutput, cw, false)...)
	}
	if len(warnings) > 0 {
		out = append(out, wrap(r.th.Fg(theme.Warning, "[Truncated: "+strings.Join(warnings, ", ")+"]"), cw)...)
	}
	return out
}

// genericTool renders a tool pi-go has no renderer for: its name, the arguments as indented JSON
// and the output (first 10 lines unless expanded).
func (r *Renderer) genericTool(v ToolView, cw int) []string {
	name := v.Name
	if name == "" {
		name = "tool"
	}
	out := wrap(r.title(oneLine(name)), cw)
	var pretty bytes.Buffer
	if args := bytes.TrimSpace(v.Args); len(args) > 0 && string(args) != "{}" && json.Indent(&pretty, args, "", "  ") == nil {
		out = append(out, "")
		out = append(out, r.styledLines(strings.Split(cleanOutput(pretty.String()), "\n"), theme.Text, cw)...)
	}
	if output := strings.TrimSpace(textOutput(v.Result)); output != "" {
		k := theme.ToolOutput
		if v.IsError {
			k = theme.Error
		}
		out = append(out, "")
		out = append(out, r.headPreview(strings.Split(output, "\n"), filePreviewLines, v.Expanded, k, cw, false)...)
	}
	return out
}
