package picker

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// formatLabelTime is pi's label time: "15:04" today, "1/2 15:04" this year, "25/1/2 15:04" before.
func formatLabelTime(ts string, now time.Time) string {
	tm, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	tm = tm.In(now.Location())
	clock := tm.Format("15:04")
	switch {
	case tm.Year() == now.Year() && tm.YearDay() == now.YearDay():
		return clock
	case tm.Year() == now.Year():
		return fmt.Sprintf("%d/%d %s", int(tm.Month()), tm.Day(), clock)
	}
	return fmt.Sprintf("%02d/%d/%d %s", tm.Year()%100, int(tm.Month()), tm.Day(), clock)
}

// searchText is what the search matches, as pi: the label, the role or kind, and the text.
func (t *Tree) searchText(r treeRow) string {
	e := r.entry
	parts := []string{}
	if r.label != "" {
		parts = append(parts, r.label)
	}
	switch e.Type {
	case session.TypeMessage:
		parts = append(parts, e.Role)
		if msg, err := e.Message(); err == nil {
			switch msg := msg.(type) {
			case *provider.UserMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.AssistantMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.ToolResultMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.BashExecutionMessage:
				parts = append(parts, msg.Command)
			}
		}
	case session.TypeCustomMessage:
		parts = append(parts, e.CustomType, firstText(e.Content))
	case session.TypeCompaction:
		parts = append(parts, "compaction")
	case session.TypeBranchSummary:
		parts = append(parts, "branch summary", e.Summary)
	case session.TypeSessionInfo:
		parts = append(parts, "title", e.Name)
	case session.TypeModelChange:
		parts = append(parts, "model", e.ModelID)
	case session.TypeThinkingLevelChange:
		parts = append(parts, "thinking", e.ThinkingLevel)
	case session.TypeCustom:
		parts = append(parts, "custom", e.CustomType)
	case session.TypeContextEdit:
		parts = append(parts, "context edit", editKind(e), e.TargetID)
	case session.TypeLabel:
		parts = append(parts, "label", e.Label)
	}
	return strings.Join(parts, " ")
}

// firstText is the text of content blocks, cut at 200 characters as pi's tree does.
func firstText(content []provider.Content) string {
	s := provider.TextOf(content, "")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// styledText is how pi's tree shows an entry: "user: ...", "assistant: ...", a tool call, a summary.
func (t *Tree) styledText(e *session.Entry) string {
	th := t.r.Theme()
	norm := func(s string) string { return oneLine(s) }
	switch e.Type {
	case session.TypeMessage:
		msg, err := e.Message()
		if err != nil {
			return th.Fg(theme.Error, "[unreadable message]")
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			return th.Fg(theme.Accent, "user: ") + norm(firstText(msg.Content))
		case *provider.AssistantMessage:
			head := th.Fg(theme.Success, "assistant: ")
			switch text := norm(firstText(msg.Content)); {
			case text != "":
				return head + text
			case msg.StopReason == provider.StopReasonAborted:
				return head + th.Fg(theme.Muted, "(aborted)")
			case msg.ErrorMessage != "":
				em := []rune(norm(msg.ErrorMessage))
				return head + th.Fg(theme.Error, string(em[:min(len(em), 80)]))
			default:
				return head + th.Fg(theme.Muted, "(no content)")
			}
		case *provider.ToolResultMessage:
			if c, ok := t.toolCall[msg.ToolCallID]; ok {
				return th.Fg(theme.Muted, formatToolCall(c.Name, c.Arguments))
			}
			name := msg.ToolName
			if name == "" {
				name = "tool"
			}
			return th.Fg(theme.Muted, "["+name+"]")
		case *provider.BashExecutionMessage:
			return th.Fg(theme.Dim, "[bash]: "+norm(msg.Command))
		default:
			// "[system]" for the prompt and tool declarations, as pi 1.6 shows them
			return th.Fg(theme.Dim, "["+msg.Role()+"]")
		}
	case session.TypeCustomMessage:
		return th.Fg(theme.CustomMessageLabel, "["+e.CustomType+"]: ") + norm(provider.TextOf(e.Content, ""))
	case session.TypeCompaction:
		return th.Fg(theme.BorderAccent, fmt.Sprintf("[compaction: %dk tokens]", int(math.Round(float64(e.TokensBefore)/1000))))
	case session.TypeBranchSummary:
		return th.Fg(theme.Warning, "[branch summary]: ") + norm(e.Summary)
	case session.TypeModelChange:
		return th.Fg(theme.Dim, "[model: "+e.ModelID+"]")
	case session.TypeThinkingLevelChange:
		return th.Fg(theme.Dim, "[thinking: "+e.ThinkingLevel+"]")
	case session.TypeCustom:
		return th.Fg(theme.Dim, "[custom: "+e.CustomType+"]")
	case session.TypeContextEdit:
		return th.Fg(theme.Dim, "[context "+editKind(e)+": "+e.TargetID+"]")
	case session.TypeLabel:
		label := e.Label
		if label == "" {
			label = "(cleared)"
		}
		return th.Fg(theme.Dim, "[label: "+label+"]")
	case session.TypeSessionInfo:
		if e.Name == "" {
			return th.Fg(theme.Dim, "[title: ") + th.Italic(th.Fg(theme.Dim, "empty")) + th.Fg(theme.Dim, "]")
		}
		return th.Fg(theme.Dim, "[title: "+e.Name+"]")
	}
	return th.Fg(theme.Dim, "["+e.Type+"]")
}

// formatToolCall is pi's one-line summary of a tool call in the tree: "[read: path:1-20]",
// "[bash: command]", "[grep: /pattern/ in path]", a custom tool's JSON arguments cut short.
func formatToolCall(name string, raw json.RawMessage) string {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := args[k]; ok && v != nil {
				if s, ok := v.(string); ok {
					if s != "" {
						return s
					}
					continue
				}
				return fmt.Sprint(v)
			}
		}
		return ""
	}
	dir := func() string {
		if p := str("path"); p != "" {
			return shortenHome(p)
		}
		return "."
	}
	switch name {
	case "read":
		p := shortenHome(str("path", "file_path"))
		off, hasOff := args["offset"].(float64)
		lim, hasLim := args["limit"].(float64)
		if hasOff || hasLim {
			start := 1
			if hasOff {
				start = int(off)
			}
			p += fmt.Sprintf(":%d", start)
			if hasLim {
				p += fmt.Sprintf("-%d", start+int(lim)-1)
			}
		}
		return "[read: " + p + "]"
	case "write", "edit":
		return "[" + name + ": " + shortenHome(str("path", "file_path")) + "]"
	case "bash":
		cmd := strings.TrimSpace(strings.NewReplacer("\n", " ", "\t", " ").Replace(str("command")))
		r := []rune(cmd)
		if len(r) > 50 {
			return "[bash: " + string(r[:50]) + "...]"
		}
		return "[bash: " + cmd + "]"
	case "grep":
		return "[grep: /" + str("pattern") + "/ in " + dir() + "]"
	case "find":
		return "[find: " + str("pattern") + " in " + dir() + "]"
	case "ls":
		return "[ls: " + dir() + "]"
	}
	s := strings.TrimSpace(string(raw))
	if s == "" {
		s = "{}"
	}
	r := []rune(oneLine(s))
	if len(r) > 40 {
		return "[" + name + ": " + string(r[:40]) + "...]"
	}
	return "[" + name + ": " + string(r) + "]"
}

// editKind is what a context_edit does to its target, in pi 1.6's words.
func editKind(e *session.Entry) string {
	if e.Replacement == nil {
		return "omit"
	}
	return "replace"
}
