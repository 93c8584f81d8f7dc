package output

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output limits shared by every tool (pi's DEFAULT_MAX_LINES / DEFAULT_MAX_BYTES).
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
)

// Truncation describes how an output was cut; it is stored as details.truncation with pi's fields.
type Truncation struct {
	Content               string  `json:"content"`
	Truncated             bool    `json:"truncated"`
	TruncatedBy           *string `json:"truncatedBy"`
	TotalLines            int     `json:"totalLines"`
	TotalBytes            int     `json:"totalBytes"`
	OutputLines           int     `json:"outputLines"`
	OutputBytes           int     `json:"outputBytes"`
	LastLinePartial       bool    `json:"lastLinePartial"`
	FirstLineExceedsLimit bool    `json:"firstLineExceedsLimit"`
	MaxLines              int     `json:"maxLines"`
	MaxBytes              int     `json:"maxBytes"`
}

func truncatedBy(s string) *string { return &s }

// FormatSize formats a byte count as pi does: "512B", "50.0KB", "1.5MB". The one decimal is rounded
// like JavaScript's toFixed(1): exact ties round up (1280 bytes is "1.3KB"), where Go's %.1f would
// round them to even.
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return formatSizeTenths(n, 1024) + "KB"
	default:
		return formatSizeTenths(n, 1024*1024) + "MB"
	}
}

// formatSizeTenths writes n/unit with one decimal, rounding half up; n and unit are positive.
func formatSizeTenths(n, unit int) string {
	tenths := (20*n + unit) / (2 * unit)
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}

// TruncateHead keeps whole lines from the start while both limits hold. A first line longer than
// maxBytes gives empty content with FirstLineExceedsLimit. Line counts follow split("\n") (a trailing
// newline counts as one more, empty, line).
func TruncateHead(content string, maxLines, maxBytes int) Truncation {
	totalBytes := len(content)
	totalLines := strings.Count(content, "\n") + 1
	t := Truncation{TotalLines: totalLines, TotalBytes: totalBytes, MaxLines: maxLines, MaxBytes: maxBytes}
	if totalLines <= maxLines && totalBytes <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, totalLines, totalBytes
		return t
	}
	t.Truncated = true
	firstEnd := strings.IndexByte(content, '\n')
	if firstEnd < 0 {
		firstEnd = len(content)
	}
	if firstEnd > maxBytes {
		t.TruncatedBy = truncatedBy("bytes")
		t.FirstLineExceedsLimit = true
		return t
	}
	lines, bytes := 0, 0
	end := 0
	by := "lines"
	for pos := 0; lines < maxLines; {
		nl := strings.IndexByte(content[pos:], '\n')
		lineEnd := len(content)
		if nl >= 0 {
			lineEnd = pos + nl
		}
		size := lineEnd - pos
		if lines > 0 {
			size++ // the separating newline
		}
		if bytes+size > maxBytes {
			by = "bytes"
			break
		}
		bytes += size
		lines++
		end = lineEnd
		if nl < 0 {
			break
		}
		pos = lineEnd + 1
	}
	t.TruncatedBy = truncatedBy(by)
	t.Content = content[:end]
	t.OutputLines = lines
	t.OutputBytes = len(t.Content)
	return t
}

// TruncateTail keeps whole lines from the end while both limits hold. When even the last line is
// longer than maxBytes, its final maxBytes bytes are kept (cut at a UTF-8 boundary) with
// LastLinePartial.
func TruncateTail(content string, maxLines, maxBytes int) Truncation {
	totalBytes := len(content)
	totalLines := strings.Count(content, "\n") + 1
	t := Truncation{TotalLines: totalLines, TotalBytes: totalBytes, MaxLines: maxLines, MaxBytes: maxBytes}
	if totalLines <= maxLines && totalBytes <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, totalLines, totalBytes
		return t
	}
	t.Truncated = true
	lines, bytes := 0, 0
	start := len(content)
	by := "lines"
	for end := len(content); lines < maxLines; {
		nl := strings.LastIndexByte(content[:end], '\n')
		lineStart := nl + 1
		size := end - lineStart
		if lines > 0 {
			size++
		}
		if bytes+size > maxBytes {
			by = "bytes"
			if lines == 0 {
				// Keep the end of the last line.
				cut := end - maxBytes
				for cut < end && !utf8.RuneStart(content[cut]) {
					cut++
				}
				start = cut
				lines = 1
				bytes = end - cut
				t.LastLinePartial = true
			}
			break
		}
		bytes += size
		lines++
		start = lineStart
		if nl < 0 {
			break
		}
		end = nl
	}
	// As pi: reaching the line limit within the byte limit reports "lines" (this also covers a
	// partial last line when maxLines is 1).
	if lines >= maxLines && bytes <= maxBytes {
		by = "lines"
	}
	t.TruncatedBy = truncatedBy(by)
	t.Content = content[start:]
	t.OutputLines = lines
	t.OutputBytes = len(t.Content)
	return t
}

// TruncateLine cuts a line to maxChars characters, adding pi's marker; it reports whether it cut.
// Characters are counted as JavaScript counts string length, in UTF-16 code units, so a character
// outside the Basic Multilingual Plane counts two. Where pi's cut would split such a character in
// half, the whole character is dropped instead (pi would emit half a surrogate pair).
func TruncateLine(line string, maxChars int) (string, bool) {
	units := 0
	for i, r := range line {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > maxChars {
			return line[:i] + "... [truncated]", true
		}
		units += w
	}
	return line, false
}
