package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type streamHooks struct {
	recordingHooks
	events []string
}

func (h *streamHooks) StreamEvent(_ context.Context, data json.RawMessage) {
	h.events = append(h.events, string(data))
}

func TestHookClientHandsOverEachStreamEvent(t *testing.T) {
	stream := "event: a\r\ndata: {\"n\":1}\r\n\r\n: comment\ndata: {\"n\":\ndata: 2}\n\ndata: not json\n\ndata: [DONE]\n\ndata:{\"n\":3}"
	contentType := "text/event-stream; charset=utf-8"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		for _, part := range []string{stream[:7], stream[7:30], stream[30:]} { // events split across reads
			io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := HookClient(nil)
	read := func(h RequestHooks) string {
		t.Helper()
		req, err := http.NewRequestWithContext(WithRequestHooks(context.Background(), h), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	h := &streamHooks{}
	if got := read(h); got != stream {
		t.Errorf("the reader got %q", got)
	}
	want := []string{`{"n":1}`, "{\"n\":\n2}", `{"n":3}`}
	if strings.Join(h.events, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", h.events, want)
	}

	contentType = "application/json" // not a stream: nothing handed over
	h = &streamHooks{}
	read(h)
	if len(h.events) != 0 {
		t.Errorf("a JSON response gave events %q", h.events)
	}
}

type nopStreamHooks struct{ recordingHooks }

func (nopStreamHooks) StreamEvent(context.Context, json.RawMessage) {}

// BenchmarkSSETap is the cost of splitting a stream into events for provider_stream_event (only
// paid when an extension handles it): 1000 small events read in 4 KiB reads.
func BenchmarkSSETap(b *testing.B) {
	var sb strings.Builder
	for range 1000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello world\"}}\n\n")
	}
	stream := sb.String()
	buf := make([]byte, 4096)
	for _, tapped := range []bool{false, true} {
		name := "plain"
		if tapped {
			name = "tapped"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			for b.Loop() {
				var r io.Reader = strings.NewReader(stream)
				if tapped {
					r = &sseTap{ReadCloser: io.NopCloser(r), ctx: context.Background(), hooks: nopStreamHooks{}}
				}
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}
