package textdiff

import (
	"strconv"
	"strings"
)

// Patch is the standard unified diff of oldText → newText for path, as pi 1.6's edit tool puts it in
// its details (jsdiff's createTwoFilesPatch with file headers only): "--- path", "+++ path", then
// hunks with contextLines unchanged lines around each change, hunks whose context would overlap
// joined, and "\ No newline at end of file" after a last line without one.
func Patch(path, oldText, newText string, contextLines int) string {
	type hunk struct {
		oldStart, oldLines, newStart, newLines int
		lines                                  []string
	}
	parts := append(diffLines(oldText, newText), part{}) // a sentinel closes the last hunk
	context := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = " " + l
		}
		return out
	}
	var hunks []hunk
	oldStart, newStart, oldLine, newLine := 0, 0, 1, 1
	var cur []string
	for i, p := range parts {
		if p.added || p.removed {
			if oldStart == 0 {
				oldStart, newStart = oldLine, newLine
				if i > 0 {
					prev := parts[i-1].lines
					cur = context(prev[max(0, len(prev)-contextLines):])
					if contextLines <= 0 {
						cur = nil
					}
					oldStart -= len(cur)
					newStart -= len(cur)
				}
			}
			sign := "-"
			if p.added {
				sign = "+"
			}
			for _, l := range p.lines {
				cur = append(cur, sign+l)
			}
			if p.added {
				newLine += len(p.lines)
			} else {
				oldLine += len(p.lines)
			}
			continue
		}
		if oldStart != 0 {
			if len(p.lines) <= contextLines*2 && i < len(parts)-2 {
				cur = append(cur, context(p.lines)...)
			} else {
				n := min(len(p.lines), contextLines)
				cur = append(cur, context(p.lines[:n])...)
				hunks = append(hunks, hunk{oldStart, oldLine - oldStart + n, newStart, newLine - newStart + n, cur})
				oldStart, newStart, cur = 0, 0, nil
			}
		}
		oldLine += len(p.lines)
		newLine += len(p.lines)
	}
	var b strings.Builder
	b.WriteString("--- " + path + "\n+++ " + path + "\n")
	for _, h := range hunks {
		if h.oldLines == 0 {
			h.oldStart--
		}
		if h.newLines == 0 {
			h.newStart--
		}
		b.WriteString("@@ -" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(h.oldLines) +
			" +" + strconv.Itoa(h.newStart) + "," + strconv.Itoa(h.newLines) + " @@\n")
		for _, l := range h.lines {
			if text, ok := strings.CutSuffix(l, "\n"); ok {
				b.WriteString(text + "\n")
			} else {
				b.WriteString(l + "\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}
