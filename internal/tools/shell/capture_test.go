package shell

import (
	"fmt"
	"strings"
	"testing"
)

// FullOutput is the output as a fresh TextDecoder reads it back (pi 1.6's bash structured content):
// whole up to FullOutputMax bytes, past that its two halves cut at character boundaries, whatever the
// chunks were.
func TestCaptureFullOutput(t *testing.T) {
	const half = FullOutputMax / 2
	feed := func(chunks ...[]byte) *Capture {
		c := NewCapture(NewOutputDir(t.TempDir()), "test")
		t.Cleanup(c.Close)
		for _, ch := range chunks {
			c.Append(ch)
		}
		c.Finish()
		return c
	}
	t.Run("short, a byte order mark and a bad byte", func(t *testing.T) {
		got, truncated := feed([]byte("\xef\xbb\xbfh\xc3"), []byte("\xa9llo \xff!")).FullOutput()
		if got != "h\u00e9llo \ufffd!" || truncated {
			t.Errorf("%q %v", got, truncated)
		}
	})
	t.Run("exactly the limit", func(t *testing.T) {
		got, truncated := feed([]byte(strings.Repeat("a", FullOutputMax))).FullOutput()
		if len(got) != FullOutputMax || truncated {
			t.Errorf("%d bytes, truncated %v", len(got), truncated)
		}
	})
	t.Run("over the limit, split characters at both cuts", func(t *testing.T) {
		// "é" (2 bytes) straddles the end of the first half; "€" (3 bytes) starts one byte before the
		// second half, so the second half begins inside it.
		head := strings.Repeat("a", half-1) + "é"
		tail := "€" + strings.Repeat("b", half-2)
		middle := strings.Repeat("m", 1000)
		text := head + middle + tail
		var chunks [][]byte
		for i := 0; i < len(text); i += 4093 {
			chunks = append(chunks, []byte(text[i:min(i+4093, len(text))]))
		}
		got, truncated := feed(chunks...).FullOutput()
		omitted := len(text) - FullOutputMax
		want := strings.Repeat("a", half-1) + fmt.Sprintf("\n\n[... %d bytes omitted ...]\n\n", omitted) + strings.Repeat("b", half-2)
		if !truncated || got != want {
			t.Errorf("truncated %v, %d bytes (%q … %q), want %d", truncated, len(got), got[half-5:half+40], got[len(got)-5:], len(want))
		}
	})
	t.Run("many times the limit", func(t *testing.T) {
		c := NewCapture(NewOutputDir(t.TempDir()), "test")
		defer c.Close()
		c.Append([]byte("start"))
		block := []byte(strings.Repeat("x", 64<<10))
		for range 40 {
			c.Append(block)
		}
		c.Append([]byte("end"))
		c.Finish()
		got, truncated := c.FullOutput()
		if !truncated || !strings.HasPrefix(got, "start") || !strings.HasSuffix(got, "xend") ||
			!strings.Contains(got, fmt.Sprintf("[... %d bytes omitted ...]", 40*(64<<10)+8-FullOutputMax)) {
			t.Errorf("truncated %v, %d bytes", truncated, len(got))
		}
	})
}
