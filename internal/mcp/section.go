package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/pi-go/pi-go/internal/provider"
)

// ServersSectionName is the system prompt section that lists the servers whose tools are not
// declared (pi's MCP_SERVERS_SECTION).
const ServersSectionName = "mcp_servers"

// Limits of the section, in UTF-16 code units as pi counts them: one server's summary (as Codex
// allows for deferred namespaces) and the whole section.
const (
	maxServerDescriptionChars = 250
	maxServersSectionChars    = 4096
)

// reachOf is how the model reaches a listed server's tools. pi says "codemode" for servers with
// codemode tools; pi-go serves codemode exposure through tool_search, so every listed server is
// reached with tool_search and the section never points the model at codemode scripts it lacks.
func reachOf(Server) string { return ToolSearchName }

// hasIndirectTools reports whether some of the server's tools may be reached through tool_search:
// its exposure or a toolExposure entry is codemode or deferred (known from the config, before it
// connects, as pi decides).
func hasIndirectTools(c *ServerConfig) bool {
	if c.ServerExposure().Searchable() {
		return true
	}
	return slices.ContainsFunc(c.ToolExposure, func(r ToolExposureRule) bool { return r.Exposure.Searchable() })
}

// serverSummary is a server's line of text: the first line of its description, else of the
// instructions it sent in initialize (pi-mcp's mcpServerSummary).
func serverSummary(description, instructions string) string {
	text := strings.TrimSpace(description)
	if text == "" {
		text = strings.TrimSpace(instructions)
	}
	first, _, _ := strings.Cut(text, "\n")
	return strings.TrimSpace(first)
}

// utf16Len is the length of s in UTF-16 code units (JavaScript's length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// truncateUnits keeps at most max UTF-16 units of text, ending in … when it cut (pi's truncate: the
// head without a split surrogate pair, trailing space trimmed).
func truncateUnits(text string, max int) string {
	if utf16Len(text) <= max {
		return text
	}
	if max <= 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range text {
		w := utf16.RuneLen(r)
		if n+w > max-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return strings.TrimRight(b.String(), " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff") + "…"
}

// ServersSection is the text of the mcp_servers section, as pi 1.6 renders it (renderServersSection):
// every enabled server with codemode or deferred tools, sorted by name, with how its tools are
// reached and a one-line summary, within 4,096 characters (summaries shrink to fit; when the server
// lines alone do not fit, the last servers are counted in a closing line). "" when no server is
// listed.
func ServersSection(statuses []Status) string {
	var listed []Status
	for _, st := range statuses {
		if st.Server.Config.Enabled && hasIndirectTools(&st.Server.Config) {
			listed = append(listed, st)
		}
	}
	if len(listed) == 0 {
		return ""
	}
	slices.SortStableFunc(listed, func(a, b Status) int { return localeCompare(a.Server.Name, b.Server.Name) })
	intro := "MCP servers whose tools are not declared to you."
	reaches := make([]string, len(listed))
	var codemode, search bool
	for i, st := range listed {
		reaches[i] = reachOf(st.Server)
		codemode = codemode || reaches[i] == "codemode"
		search = search || reaches[i] == ToolSearchName
	}
	if codemode {
		intro += " Call the tools of `codemode` servers from codemode scripts."
	}
	if search {
		intro += " Load the tools of `tool_search` servers with `tool_search`."
	}
	heads := make([]string, len(listed))
	for i, st := range listed {
		heads[i] = fmt.Sprintf("- %s (%s)", namespace(st.Server.Name), reaches[i])
	}
	omitted := func(count int) []string {
		if count <= 0 {
			return nil
		}
		plural := "s"
		if count == 1 {
			plural = ""
		}
		return []string{fmt.Sprintf("- … %d more server%s; find their tools with searchTools()", count, plural)}
	}
	size := func(kept int) int {
		lines := append(append([]string{intro}, heads[:kept]...), omitted(len(listed)-kept)...)
		return utf16Len(strings.Join(lines, "\n"))
	}
	kept := len(listed)
	for kept > 0 && size(kept) > maxServersSectionChars {
		kept--
	}
	perServer := 0
	if kept > 0 {
		// Each summary also takes a ": " separator. Go's division truncates toward zero, JavaScript's
		// Math.floor toward minus infinity; the numerator is never negative here (kept only shrinks
		// while the size is over the limit).
		perServer = min(maxServerDescriptionChars, (maxServersSectionChars-size(kept))/kept-2)
	}
	lines := []string{intro}
	for i, st := range listed[:kept] {
		summary := ""
		if perServer > 0 {
			summary = truncateUnits(serverSummary(st.Server.Config.Description, st.Instructions), perServer)
		}
		if summary != "" {
			lines = append(lines, heads[i]+": "+summary)
		} else {
			lines = append(lines, heads[i])
		}
	}
	lines = append(lines, omitted(len(listed)-kept)...)
	return strings.Join(lines, "\n")
}

// localeCompare orders server names as JavaScript's localeCompare does under the root collation,
// for the characters names may hold ([A-Za-z0-9_-]): _ before - before digits before letters,
// letters without regard to case first, then lower case before upper case.
func localeCompare(a, b string) int {
	primary := func(c byte) int {
		switch {
		case c == '_':
			return 1
		case c == '-':
			return 2
		case c >= '0' && c <= '9':
			return 10 + int(c-'0')
		case c >= 'a' && c <= 'z':
			return 100 + int(c-'a')
		case c >= 'A' && c <= 'Z':
			return 100 + int(c-'A')
		}
		return 1000 + int(c)
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if d := primary(a[i]) - primary(b[i]); d != 0 {
			return d
		}
	}
	if d := len(a) - len(b); d != 0 {
		return d
	}
	for i := 0; i < len(a); i++ {
		lowerA, lowerB := a[i] >= 'a' && a[i] <= 'z', b[i] >= 'a' && b[i] <= 'z'
		switch {
		case lowerA && !lowerB:
			return -1
		case lowerB && !lowerA:
			return 1
		}
	}
	return 0
}

// PromptSections adds the mcp_servers section to every prompt (the harness's section source).
type PromptSections struct{ m *Manager }

// NewPromptSections is the section source of m's servers.
func NewPromptSections(m *Manager) *PromptSections { return &PromptSections{m: m} }

// Prepare waits, when a prompt starts, for the servers with direct tools (at most pi's 10 seconds),
// as pi does before it renders the section.
func (p *PromptSections) Prepare(ctx context.Context) { p.m.WaitDirect(ctx, directWait) }

// Sections is the mcp_servers section as the servers are now (none when no server is listed).
func (p *PromptSections) Sections() []provider.PromptSection {
	if text := ServersSection(p.m.Statuses()); text != "" {
		return []provider.PromptSection{{Name: ServersSectionName, Text: text}}
	}
	return nil
}
