package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type recordingHooks struct {
	asked     [][]byte
	replace   []byte
	responses []int
	headers   map[string]string
}

func (h *recordingHooks) BeforeRequest(_ context.Context, body []byte) []byte {
	h.asked = append(h.asked, body)
	if h.replace != nil {
		return h.replace
	}
	return body
}

func (h *recordingHooks) AfterResponse(_ context.Context, status int, headers map[string]string) {
	h.responses = append(h.responses, status)
	h.headers = headers
}

func TestHookClientReplacesTheBodyAndReportsTheResponse(t *testing.T) {
	var got []string
	status := http.StatusTooManyRequests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b)+"|"+r.Header.Get("Content-Length"))
		w.Header().Add("X-Trace", "a")
		w.Header().Add("X-Trace", "b")
		w.WriteHeader(status)
	}))
	defer srv.Close()
	c := HookClient(nil)
	h := &recordingHooks{replace: []byte(`{"model":"replaced"}`)}
	ctx := WithRequestHooks(context.Background(), h)
	send := func(ctx context.Context, body string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send(ctx, `{"model":"m"}`) // refused: no after_provider_response
	status = http.StatusOK
	send(ctx, `{"model":"m"}`) // the retry of the same body: not asked again
	if len(h.asked) != 1 || string(h.asked[0]) != `{"model":"m"}` {
		t.Errorf("the hook was asked %q", h.asked)
	}
	want := `{"model":"replaced"}|20`
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("the server saw %q, want the replaced body twice", got)
	}
	if len(h.responses) != 1 || h.responses[0] != 200 || h.headers["x-trace"] != "a, b" {
		t.Errorf("responses %v, headers %v", h.responses, h.headers)
	}

	send(context.Background(), `{"model":"plain"}`) // no hooks: untouched
	if got[2] != `{"model":"plain"}|17` || len(h.asked) != 1 {
		t.Errorf("without hooks the server saw %q", got[2])
	}
	if HookClient(c) != c {
		t.Error("a hooked client was wrapped twice")
	}
}

func TestHookClientKeepsTheGivenTransport(t *testing.T) {
	var seen bytes.Buffer
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		io.Copy(&seen, r.Body)
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c := HookClient(&http.Client{Transport: base})
	ctx := WithRequestHooks(context.Background(), &recordingHooks{replace: []byte("new")})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/", strings.NewReader("old"))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen.String() != "new" {
		t.Errorf("the given transport saw %q", seen.String())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The cost of the hooked transport on a request whose context carries no hooks (no extension
// handles the provider events), against the bare transport.
func BenchmarkHookClientWithoutHooks(b *testing.B) {
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	for _, c := range []struct {
		name string
		rt   http.RoundTripper
	}{{"bare", base}, {"hooked", HookClient(&http.Client{Transport: base}).Transport}} {
		b.Run(c.name, func(b *testing.B) {
			// The base never reads the body: one request serves every iteration.
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://127.0.0.1:1/", strings.NewReader("{}"))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}
