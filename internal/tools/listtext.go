package tools

import (
	"math"
	"strings"

	"github.com/pi-go/pi-go/internal/tools/output"
)

// listText is the text of a listing tool's result (grep, find, ls): its lines joined and cut at
// output.DefaultMaxBytes, then pi's notices in brackets: limitNotice, the byte limit's, lineNotice
// (each when there is one). cut is the byte limit's truncation (nil when it cut nothing); noticed
// reports whether a notice was written, when the result carries its details.
func listText(lines []string, limitNotice, lineNotice string) (text string, cut *output.Truncation, noticed bool) {
	tr := output.TruncateHead(strings.Join(lines, "\n"), math.MaxInt, output.DefaultMaxBytes)
	var notices []string
	if limitNotice != "" {
		notices = append(notices, limitNotice)
	}
	if tr.Truncated {
		notices = append(notices, output.FormatSize(output.DefaultMaxBytes)+" limit reached")
		cut = &tr
	}
	if lineNotice != "" {
		notices = append(notices, lineNotice)
	}
	text = tr.Content
	if len(notices) > 0 {
		text += "\n\n[" + strings.Join(notices, ". ") + "]"
	}
	return text, cut, len(notices) > 0
}
