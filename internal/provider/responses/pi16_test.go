package responses

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/loopback"
	"github.com/pi-go/pi-go/internal/provider/pi16fixture"
	"github.com/pi-go/pi-go/internal/provider/responses/responsestest"
)

// The requests pi-go sends at each step of a conversation pi 1.6.0 had (testdata/pi16, recorded by
// scripts/interop/record-apis) are byte for byte the ones pi sent, and the replies pi-go makes of
// the same answers are the ones pi stored.
func TestPi16Requests(t *testing.T) {
	answers := responsestest.Pi16Answers()
	for _, tc := range []struct {
		dir     string
		answers []string
	}{
		{"tool-run", answers[:2]},
		{"image", answers[2:3]},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			run, err := pi16fixture.Load(filepath.Join("testdata", "pi16", tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Requests) != len(tc.answers) {
				t.Fatalf("%d recorded requests, %d answers", len(run.Requests), len(tc.answers))
			}
			for n, answer := range tc.answers {
				s := loopback.New(t, loopback.SSE(answer))
				req := run.Request(pi16Model(s.URL), n)
				_, got := collect(t, context.Background(), req)
				if got.StopReason == provider.StopReasonError {
					t.Fatalf("request %d: %s", n+1, got.ErrorMessage)
				}
				if s.Path(0) != "/v1/responses" {
					t.Errorf("request %d path %s", n+1, s.Path(0))
				}
				if h := s.Header(0); h.Get("Authorization") != "Bearer mock-key" || h.Get("session-id") != run.SessionID ||
					h.Get("x-client-request-id") != run.SessionID {
					t.Errorf("request %d headers %v", n+1, h)
				}
				if body, want := string(s.Body(0)), string(run.Requests[n]); body != want {
					t.Errorf("request %d body differs from pi's\n got: %s\nwant: %s", n+1, body, want)
				}
				comparable := func(m *provider.AssistantMessage) string {
					c := *m
					c.Timestamp, c.DurationMs, c.ThinkingLevel = 0, nil, ""
					b, err := json.Marshal(&c)
					if err != nil {
						t.Fatal(err)
					}
					return string(b)
				}
				if g, w := comparable(got), comparable(run.Reply(n)); g != w {
					t.Errorf("reply %d differs from pi's\n got: %s\nwant: %s", n+1, g, w)
				}
			}
		})
	}
}
