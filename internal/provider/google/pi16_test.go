package google

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/google/googletest"
	"github.com/pi-go/pi-go/internal/provider/loopback"
	"github.com/pi-go/pi-go/internal/provider/pi16fixture"
)

// The requests pi-go sends at each step of a conversation pi 1.6.0 had (testdata/pi16, recorded by
// scripts/interop/record-apis) carry what pi's did (compared with members sorted: the SDK writes
// its own order), and the replies pi-go makes of the same answers are the ones pi stored.
func TestPi16Requests(t *testing.T) {
	answers := googletest.Pi16Answers()
	for _, tc := range []struct {
		dir     string
		model   func(base string) *provider.Model
		answers []string
	}{
		{"tool-run", pi16Model, answers[:2]},
		{"image", pi16Model, answers[2:3]},
		// Gemini 3: thinking level, tool-call ids, strict tools with VALIDATED mode.
		{"gemini3-tool-run", pi16Model3, answers[:2]},
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
				req := run.Request(tc.model(s.URL), n)
				_, got := collect(t, context.Background(), req)
				if got.StopReason == provider.StopReasonError {
					t.Fatalf("request %d: %s", n+1, got.ErrorMessage)
				}
				if want := "/v1beta/models/" + req.Model.ID + ":streamGenerateContent"; s.Path(0) != want {
					t.Errorf("request %d path %s, want %s", n+1, s.Path(0), want)
				}
				if h := s.Header(0); h.Get("x-goog-api-key") != "mock-key" {
					t.Errorf("request %d headers %v", n+1, h)
				}
				body, err := pi16fixture.Canonical(s.Body(0))
				if err != nil {
					t.Fatal(err)
				}
				want, err := pi16fixture.Canonical(run.Requests[n])
				if err != nil {
					t.Fatal(err)
				}
				if body != want {
					t.Errorf("request %d body differs from pi's\n got: %s\nwant: %s", n+1, body, want)
				}
				if g, w := comparable(t, got), comparable(t, run.Reply(n)); g != w {
					t.Errorf("reply %d differs from pi's\n got: %s\nwant: %s", n+1, g, w)
				}
			}
		})
	}
}

// madeUpID is the id pi and pi-go give a function call that came without one: name, time, counter.
var madeUpID = regexp.MustCompile(`"([a-z]+)_\d{13}_\d+"`)

// comparable is a reply without what differs between runs: times and made-up tool-call ids.
func comparable(t *testing.T, m *provider.AssistantMessage) string {
	t.Helper()
	c := *m
	c.Timestamp, c.DurationMs, c.ThinkingLevel = 0, nil, ""
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return madeUpID.ReplaceAllString(string(b), `"${1}_<time>_<n>"`)
}
