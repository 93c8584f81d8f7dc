package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxToolNameLength is the providers' limit on tool names (64 characters of [A-Za-z0-9_-]).
const maxToolNameLength = 64

// sanitize replaces every character but [A-Za-z0-9_] with _, one per UTF-16 unit as JavaScript's
// replace does in pi (a character outside the BMP becomes __).
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ToolName is the model-facing name of a server's tool, as pi 1.6 builds it (createMcpToolName):
// mcp__<server>__<tool> with every character but [A-Za-z0-9_] replaced by _, shortened with a hash
// suffix when longer than 64 characters or when taken reports the name used by another tool.
func ToolName(server, tool string, taken func(string) bool) string {
	name := sanitize("mcp__" + server + "__" + tool)
	if len(name) <= maxToolNameLength && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	hash := hex.EncodeToString(sum[:])[:8]
	return name[:min(len(name), maxToolNameLength-len(hash)-1)] + "_" + hash
}

// namespace is the namespace of a server's tools: mcp__<server> with - as _. Server names that
// differ only in - and _ share one, so a configuration must not have both.
func namespace(server string) string { return "mcp__" + strings.ReplaceAll(server, "-", "_") }

// summary is a server's one line for the system prompt and tool search: the first line of its
// description, else of its instructions.
func summary(description, instructions string) string {
	text := strings.TrimSpace(description)
	if text == "" {
		text = strings.TrimSpace(instructions)
	}
	line, _, _ := strings.Cut(text, "\n")
	return strings.TrimSpace(line)
}
