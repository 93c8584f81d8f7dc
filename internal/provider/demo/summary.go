package demo

import (
	"strings"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// Summary requests: pi's compaction and branch summaries send the transcript serialised inside
// <conversation> tags, followed by the headings the summary must use. The demo cannot summarise for
// real, but it fills those headings with what it can read for certain (the user's requests, the tool
// calls made) and says who wrote it, so /compact and auto-compaction work with the demo too.

var (
	rePrevSummary = lazyregexp.New(`(?s)^<previous-summary>\n(.*?)\n</previous-summary>\n\n(.*)$`)
	reHeading     = lazyregexp.New(`(?m)^(#{2,3}) (.+?)\s*$`)
	reDoneItem    = lazyregexp.New(`(?m)^- \[x\] .+$`)
)

// transcriptPart is one "[Role]: text" paragraph of a serialised conversation.
type transcriptPart struct {
	role, text string
}

var partPrefixes = []string{"[User]: ", "[Assistant]: ", "[Assistant thinking]: ", "[Assistant tool calls]: ", "[Tool result]: "}

// parseTranscript splits a serialised conversation into its paragraphs: a line starting with a role
// prefix starts one, other lines continue it. The texts are slices of s (a compaction's transcript can
// be tens of megabytes).
func parseTranscript(s string) []transcriptPart {
	var parts []transcriptPart
	open := -1 // the paragraph being extended
	for start := 0; start <= len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		started := false
		for _, p := range partPrefixes {
			if len(line) > 0 && line[0] == '[' && strings.HasPrefix(line, p) {
				parts = append(parts, transcriptPart{role: strings.Trim(p, "[]: "), text: line[len(p):]})
				open = start + len(p)
				started = true
				break
			}
		}
		if !started && open >= 0 {
			parts[len(parts)-1].text = s[open:end]
		}
		start = end + 1
	}
	return parts
}

// pathArgs returns the quoted path arguments of a serialised tool call, as
// `\bpath="((?:[^"\\]|\\.)*)"` finds them (a regular expression backtracks through every call of a
// long history).
func pathArgs(call string) []string {
	const key = `path="`
	var out []string
	for i := 0; ; {
		j := strings.Index(call[i:], key)
		if j < 0 {
			return out
		}
		j += i
		i = j + 1 // where to look next when this one is not a match
		if j > 0 && isWordByte(call[j-1]) {
			continue
		}
		start := j + len(key)
	body:
		for k := start; k < len(call); {
			switch call[k] {
			case '"':
				out = append(out, call[start:k])
				i = k + 1
				break body
			case '\\':
				if k+1 >= len(call) || call[k+1] == '\n' {
					break body // "\\." matches no newline: no match here
				}
				k += 2
			default:
				k++
			}
		}
	}
}

// isWordByte reports whether c is an ASCII word character (\w).
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// conversationPrompt splits a summarisation prompt into the serialised conversation and the
// instructions after it, as `(?s)^<conversation>\n(.*)\n</conversation>\n\n(.*)$` would (the
// conversation runs to the last closing tag), without a regular expression over megabytes.
func conversationPrompt(text string) (conversation, instructions string, ok bool) {
	const open, closing = "<conversation>\n", "\n</conversation>\n\n"
	if !strings.HasPrefix(text, open) {
		return "", "", false
	}
	i := strings.LastIndex(text, closing)
	if i < len(open) {
		return "", "", false
	}
	return text[len(open):i], text[i+len(closing):], true
}

// summaryRequest answers a summarisation prompt, or reports that text is not one.
func (p *planner) summaryRequest(text string) (reply, bool) {
	conv, instructions, ok := conversationPrompt(text)
	if !ok {
		return reply{}, false
	}
	parts := parseTranscript(conv)
	var previousDone []string
	if pm := rePrevSummary.FindStringSubmatch(instructions); pm != nil {
		previousDone = reDoneItem.FindAllString(pm[1], -1)
		instructions = pm[2]
	}
	var requests, calls, paths []string
	lastRole := ""
	for _, part := range parts {
		switch part.role {
		case "User":
			requests = append(requests, clip(strings.Join(strings.Fields(part.text), " "), 120))
		case "Assistant tool calls":
			for _, c := range strings.Split(part.text, "; ") {
				calls = append(calls, clip(strings.TrimSpace(c), 120))
				for _, p := range pathArgs(c) {
					paths = append(paths, "`"+p+"`")
				}
			}
		}
		lastRole = part.role
	}
	none := "- (none)"
	bullets := func(items []string, prefix string) string {
		if len(items) == 0 {
			return none
		}
		return prefix + strings.Join(items, "\n"+prefix)
	}
	lastRequest := "(no request yet)"
	if len(requests) > 0 {
		lastRequest = requests[len(requests)-1]
	}
	var out []string
	for _, h := range reHeading.FindAllStringSubmatch(instructions, -1) {
		out = append(out, h[1]+" "+h[2])
		var body string
		switch strings.ToLower(h[2]) {
		case "goal":
			body = bullets(requests, "- ")
		case "original request":
			if len(requests) > 0 {
				body = requests[0]
			} else {
				body = "(none)"
			}
		case "done":
			done := previousDone
			for _, c := range calls {
				done = append(done, "- [x] "+c)
			}
			body = bullets(done, "")
		case "early progress":
			body = bullets(calls, "- ")
		case "in progress":
			if lastRole == "User" {
				body = "- [ ] " + lastRequest
			} else {
				body = none
			}
		case "key decisions":
			body = "- **Offline demo summary**: written by pi-go's scripted demo model, which cannot really summarise; it lists the requests and tool calls only."
		case "next steps":
			body = "1. Continue with: " + lastRequest
		case "critical context", "context for suffix":
			if len(paths) > 0 {
				body = "- Files involved: " + strings.Join(uniqueStrings(paths), ", ")
			} else {
				body = none
			}
		case "progress":
			continue // its subsections follow
		default:
			body = none
		}
		out = append(out, body, "")
	}
	if len(out) == 0 {
		// No headings asked for: a plain summary.
		out = append(out, "Summary (written by pi-go's offline demo model):", "", bullets(requests, "- Asked: "), bullets(calls, "- Tool call: "))
	}
	return reply{
		Thinking: "This is a summarisation request: the conversation comes serialised in <conversation> tags, followed by the format to use. I'll fill the requested headings with the user's requests and the tool calls, and say that a scripted demo wrote it.",
		Text:     strings.TrimSpace(strings.Join(out, "\n")),
	}, true
}

func uniqueStrings(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
