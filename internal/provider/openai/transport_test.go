package openai

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The request line and every header, exactly: what a server sees of pi-go besides the body. The model's and
// the call's headers come last and win (authHeader sets Authorization itself); no key sends no
// Authorization.
func TestRequestHeadersExactly(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		model   map[string]string
		call    map[string]string
		changed map[string]string // headers that differ from a plain keyed request ("" : absent)
	}{
		{name: "with a key", key: "sk-1"},
		{name: "without a key", changed: map[string]string{"Authorization": ""}},
		{name: "model and call headers win", key: "sk-1",
			model:   map[string]string{"X-Team": "blue", "Authorization": "Bearer from-model", "Accept": "application/json"},
			call:    map[string]string{"X-Team": "red"},
			changed: map[string]string{"X-Team": "red", "Authorization": "Bearer from-model", "Accept": "application/json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan *http.Request, 1)
			var size int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				size, _ = io.Copy(io.Discard, r.Body)
				got <- r
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			}))
			defer srv.Close()
			m := testModel(srv.URL + "/v1/")
			m.Headers = tc.model
			p := newTestProvider(t, Config{})
			msg := p.Stream(context.Background(), &provider.Request{Model: m,
				Messages: []provider.Message{provider.NewUserMessage("hi")},
				Options:  provider.StreamOptions{APIKey: tc.key, Headers: tc.call}}, nil)
			if msg.StopReason != provider.StopReasonStop {
				t.Fatalf("stream failed: %s", msg.ErrorMessage)
			}
			r := <-got
			want := map[string]string{
				"Accept": "text/event-stream", "Accept-Encoding": "gzip", "Authorization": "Bearer sk-1",
				"Cache-Control": "no-cache", "Connection": "keep-alive", "Content-Type": "application/json",
				"User-Agent": "Go-http-client/1.1",
			}
			for k, v := range tc.changed {
				if v == "" {
					delete(want, k)
				} else {
					want[k] = v
				}
			}
			want["Content-Length"] = strconv.FormatInt(size, 10) // the body is sent with its length
			have := map[string]string{}
			for k, v := range r.Header {
				have[k] = strings.Join(v, ", ")
			}
			if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || size == 0 || !maps.Equal(have, want) {
				t.Errorf("%s %s (length %d)\n got headers %v\nwant headers %v", r.Method, r.URL.Path, r.ContentLength, have, want)
			}
		})
	}
}

// Any model id is sent as it is: a server may call its model "davinci" or "ada" (go-openai, which
// pi-go no longer sends through, refused such legacy names before sending anything).
func TestLegacyModelNamesAreSent(t *testing.T) {
	srv := startServer(t)
	p := newTestProvider(t, Config{})
	for _, id := range []string{"davinci", "text-davinci-003", "ada"} {
		srv.Enqueue(openaitest.TextReply(id, "ok"))
		m := testModel(srv.URL)
		m.ID = id
		if msg, _ := run(t, p, context.Background(), simpleRequest(m)); msg.StopReason != provider.StopReasonStop {
			t.Errorf("%s: %s", id, msg.ErrorMessage)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests sent, want 3", n)
	}
}
