package openai

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// A session's requests sized from the previous request's lengths are byte for byte the body sized
// from scratch, as the transcript grows and as earlier messages drop out (a compaction).
func TestCachedSizesMatchFreshBodies(t *testing.T) {
	m := testModel("http://127.0.0.1:1/v1")
	all := largeTranscript(60, 3)
	// Awkward long strings too, whose escaped length differs most from their length.
	for _, s := range awkwardStrings {
		all = append(all, provider.NewUserMessage(s+strings.Repeat(s, 600/max(len(s), 1))))
	}
	c := resolveCompat(m)
	var lens quotedLens
	for _, window := range [][2]int{{0, 10}, {0, 40}, {0, len(all)}, {30, len(all)}, {0, 5}, {0, len(all)}} {
		req := &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: all[window[0]:window[1]]}
		_, want := streamedBody(t, req, 32<<10)
		rb, err := newCachedRequestBody(req, &c, &lens)
		if err != nil {
			t.Fatal(err)
		}
		got := readWith(t, rb.reader(), 7, 4096)
		if int64(len(got)) != rb.size {
			t.Fatalf("messages %v: read %d bytes, the cached size says %d", window, len(got), rb.size)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("messages %v: the body differs from one sized from scratch", window)
		}
		if n := len(lens.last); n == 0 {
			t.Fatalf("messages %v: no lengths kept for the next request", window)
		}
	}
}
