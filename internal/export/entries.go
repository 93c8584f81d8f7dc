package export

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// kindOf is an entry's CSS kind, known without decoding its message.
func kindOf(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		switch e.Role {
		case provider.RoleUser:
			return "user"
		case provider.RoleAssistant:
			return "assistant"
		case provider.RoleToolResult:
			return "tool"
		case provider.RoleBashExecution:
			return "bash"
		case provider.RoleBranchSummary, provider.RoleCompactionSummary:
			return "summary"
		default:
			return "custom"
		}
	case session.TypeModelChange, session.TypeThinkingLevelChange, session.TypeContextEdit, session.TypeUsage:
		return "info"
	case session.TypeCompaction, session.TypeBranchSummary:
		return "summary"
	case session.TypeCustomMessage:
		if e.Display {
			return "custom"
		}
	}
	return "aux" // bookkeeping entries: shown only with "show all"
}

// writeEntry writes one entry as an <article>. A message that cannot be read is shown as such and
// the export goes on: one damaged line must not cost the rest of the page.
func (p *page) writeEntry(e *session.Entry) {
	kind := kindOf(e)
	p.str(`<article class="e k-` + kind)
	if !p.active[e.ID] {
		p.str(" off")
	}
	p.str(`" id="e-`)
	p.esc(e.ID)
	p.str(`" data-p="`)
	p.esc(e.ParentID)
	p.str("\">\n")
	var snippet string
	switch e.Type {
	case session.TypeMessage:
		m, err := e.DecodeMessage(&p.dec)
		if err != nil {
			p.str(`<div class="error">Could not read this message: `)
			p.esc(err.Error())
			p.str("</div>")
			snippet = "unreadable message"
			break
		}
		snippet = p.writeMessage(e, m)
	case session.TypeModelChange:
		snippet = "Model: " + e.Provider + "/" + e.ModelID
		p.info(snippet)
	case session.TypeThinkingLevelChange:
		snippet = "Thinking: " + e.ThinkingLevel
		p.info(snippet)
	case session.TypeCompaction:
		snippet = "Compaction"
		p.summaryCard("Compaction", e.Summary, "compacted "+groupThousands(e.TokensBefore)+" tokens")
	case session.TypeBranchSummary:
		snippet = "Branch summary"
		p.summaryCard("Branch summary", e.Summary, "")
	case session.TypeCustomMessage:
		snippet = p.custom(e.CustomType, e.Content)
	case session.TypeContextEdit:
		if e.Replacement == nil {
			snippet = "Context edit: " + e.TargetID + " omitted"
		} else {
			snippet = "Context edit: " + e.TargetID + " replaced"
		}
		p.info(snippet)
	case session.TypeUsage:
		u, _ := e.Usage()
		snippet = "Usage (" + e.Kind + "): " + usageText(u)
		p.info(snippet)
	case session.TypeSessionInfo:
		snippet = "Name: " + e.Name
		p.info(snippet)
	case session.TypeLabel:
		snippet = "Label " + e.TargetID + ": " + e.Label
		p.info(snippet)
	default:
		snippet = e.Type
		if e.CustomType != "" {
			snippet += ": " + e.CustomType
		}
		p.info(snippet)
	}
	p.str("</article>\n")
	p.rows = append(p.rows, treeRow{id: e.ID, parent: e.ParentID, kind: kind, text: clip(snippet, 100)})
}

func (p *page) info(text string) {
	p.str(`<div class="info">`)
	p.esc(text)
	p.str("</div>")
}

func (p *page) summaryCard(title, summary, note string) {
	p.str(`<div class="who">`)
	p.esc(title)
	if note != "" {
		p.str(` <span class="note">`)
		p.esc(note)
		p.str("</span>")
	}
	p.str("</div><div class=\"md\">")
	p.markdown(summary)
	p.str("</div>")
}

func (p *page) markdown(text string) {
	if err := p.md.Convert([]byte(text), p.w); err != nil {
		// goldmark fails only when the writer does; the writer's own error surfaces at Flush.
		p.esc(text)
	}
}

// writeMessage writes a message's body and returns its tree snippet.
func (p *page) writeMessage(e *session.Entry, m provider.Message) string {
	switch m := m.(type) {
	case *provider.UserMessage:
		p.who("You", m.Timestamp)
		p.writeContent(m.Content, true)
		return provider.TextOf(m.Content, " ")
	case *provider.AssistantMessage:
		return p.writeAssistant(m)
	case *provider.ToolResultMessage:
		return p.writeToolResult(m)
	case *provider.BashExecutionMessage:
		return p.writeBash(m)
	case *provider.CustomMessage:
		return p.custom(m.CustomType, m.Content)
	case *provider.BranchSummaryMessage:
		p.summaryCard("Branch summary", m.Summary, "")
		return "Branch summary"
	case *provider.CompactionSummaryMessage:
		p.summaryCard("Compaction summary", m.Summary, "compacted "+groupThousands(m.TokensBefore)+" tokens")
		return "Compaction summary"
	case *provider.OpaqueMessage:
		p.str(`<div class="who">`)
		p.esc(m.RoleName)
		p.str("</div>")
		p.writeOutput(string(m.Raw), "json")
		return m.RoleName
	}
	p.info("message of role " + m.Role())
	return m.Role()
}

// custom writes an extension's message (a custom_message entry or a custom role) and returns its
// tree snippet.
func (p *page) custom(customType string, content []provider.Content) string {
	p.str(`<div class="who">`)
	p.esc(customType)
	p.str("</div>")
	p.writeContent(content, true)
	return "[" + customType + "] " + provider.TextOf(content, " ")
}

func (p *page) who(name string, ts int64) {
	p.str(`<div class="who">`)
	p.esc(name)
	if ts > 0 {
		p.str(` <time>`)
		p.esc(msTime(ts))
		p.str("</time>")
	}
	p.str("</div>")
}

// writeContent writes text blocks (as markdown when md, else as preformatted output) and images.
func (p *page) writeContent(content []provider.Content, md bool) {
	for _, c := range content {
		switch c.Type {
		case provider.ContentText:
			if md {
				p.str(`<div class="md">`)
				p.markdown(c.Text)
				p.str("</div>")
			} else {
				p.writeOutput(c.Text, "")
			}
		case provider.ContentImage:
			p.image(c)
		case provider.ContentThinking:
			p.thinking(c)
		}
	}
}

func (p *page) thinking(c provider.Content) {
	p.str(`<div class="thinking">`)
	if c.Redacted {
		p.str("<em>Thinking redacted by the provider</em>")
	} else {
		p.str(`<div class="md">`)
		p.markdown(c.Thinking)
		p.str("</div>")
	}
	p.str("</div>")
}

// image writes an image block as a data: URI, after checking that its type and data can go into an
// attribute as they are.
func (p *page) image(c provider.Content) {
	if !isImageMIME(c.MimeType) || !isBase64(c.Data) {
		p.str(`<div class="error">[image: unreadable data of type `)
		p.esc(c.MimeType)
		p.str("]</div>")
		return
	}
	p.str(`<img class="img" alt="image" loading="lazy" src="data:`)
	p.str(c.MimeType)
	p.str(";base64,")
	p.str(c.Data)
	p.str(`">`)
}

// isImageMIME accepts image/<subtype> with the characters a media type may have.
func isImageMIME(m string) bool {
	sub, ok := strings.CutPrefix(m, "image/")
	if !ok || sub == "" {
		return false
	}
	for _, c := range sub {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}

func (p *page) writeAssistant(m *provider.AssistantMessage) string {
	name := "Assistant"
	if m.Model != "" {
		name = m.Model
	}
	p.who(name, m.Timestamp)
	var snippet, tools []string
	for _, c := range m.Content {
		switch c.Type {
		case provider.ContentText:
			p.str(`<div class="md">`)
			p.markdown(c.Text)
			p.str("</div>")
			snippet = append(snippet, c.Text)
		case provider.ContentThinking:
			p.thinking(c)
		case provider.ContentToolCall:
			p.writeToolCall(c)
			tools = append(tools, c.Name)
		case provider.ContentImage:
			p.image(c)
		}
	}
	switch m.StopReason {
	case provider.StopReasonError:
		p.str(`<div class="error">Error: `)
		p.esc(m.ErrorMessage)
		p.str("</div>")
	case provider.StopReasonAborted:
		p.str(`<div class="error">Aborted</div>`)
	}
	p.str(`<div class="usage">`)
	if m.Provider != "" {
		p.esc(m.Provider + "/" + m.Model + " · ")
	}
	p.esc(usageText(m.Usage))
	p.str("</div>")
	text := strings.Join(snippet, " ")
	if text == "" && len(tools) > 0 {
		text = "[" + strings.Join(tools, ", ") + "]"
	}
	return text
}

func usageText(u provider.Usage) string {
	s := "↑" + groupThousands(u.Input) + " ↓" + groupThousands(u.Output)
	if u.CacheRead > 0 {
		s += " R" + groupThousands(u.CacheRead)
	}
	if u.CacheWrite > 0 {
		s += " W" + groupThousands(u.CacheWrite)
	}
	return s + " · " + formatCost(u.Cost.Total)
}

func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z") }

// clip shortens s to about n characters on one line, for the tree.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// jsonObject decodes tool-call arguments; nil when they are not an object.
func jsonObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func strArg(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
