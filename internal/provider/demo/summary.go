package demo

import (
	"regexp"
	"strings"
)

// Summary requests: pi's compaction and branch summaries send the transcript serialised inside
// <conversation> tags, followed by the headings the summary must use. The demo cannot summarise for
// real, but it fills those headings with what it can read for certain (the user's requests, the tool
// calls made) and says who wrote it, so /compact and auto-compaction work with the demo too.

var (
	reConversation = regexp.MustCompile(`(?s)^<conversation>\n(.*)\n</conversation>\n\n(.*)$`)
	rePrevSummary  = regexp.MustCompile(`(?s)^<previous-summary>\n(.*?)\n</previous-summary>\n\n(.*)$`)
	reHeading      = regexp.MustCompile(`(?m)^(#{2,3}) (.+?)\s*$`)
	reDoneItem     = regexp.MustCompile(`(?m)^- \[x\] .+$`)
	rePathArg      = regexp.MustCompile(`\bpath="((?:[^"\\]|\\.)*)"`)
)

// transcriptPart is one "[Role]: text" paragraph of a serialised conversation.
type transcriptPart struct {
	role, text string
}

var partPrefixes = []string{"[User]: ", "[Assistant]: ", "[Assistant thinking]: ", "[Assistant tool calls]: ", "[Tool result]: "}

func parseTranscript(s string) []transcriptPart {
	var parts []transcriptPart
	for _, line := range strings.Split(s, "\n") {
		started := false
		for _, p := range partPrefixes {
			if strings.HasPrefix(line, p) {
				parts = append(parts, transcriptPart{role: strings.Trim(p, "[]: "), text: line[len(p):]})
				started = true
				break
			}
		}
		if !started && len(parts) > 0 {
			parts[len(parts)-1].text += "\n" + line
		}
	}
	return parts
}

// summaryRequest answers a summarisation prompt, or reports that text is not one.
func (p *planner) summaryRequest(text string) (reply, bool) {
	m := reConversation.FindStringSubmatch(text)
	if m == nil {
		return reply{}, false
	}
	parts := parseTranscript(m[1])
	instructions := m[2]
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
				for _, pm := range rePathArg.FindAllStringSubmatch(c, -1) {
					paths = append(paths, "`"+pm[1]+"`")
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
