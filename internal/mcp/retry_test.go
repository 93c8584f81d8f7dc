package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// flakyServer is the test MCP server on 127.0.0.1 behind fail, which sees each POST's JSON-RPC
// method and may answer it itself (a status, or a dropped connection) instead of the server.
type flakyServer struct {
	mu    sync.Mutex
	calls map[string]int // POSTs per method, answered or not
	fail  func(method string, n int, w http.ResponseWriter) bool
}

func newFlakyServer(t *testing.T, fail func(method string, n int, w http.ResponseWriter) bool) (*flakyServer, string) {
	f := &flakyServer{calls: map[string]int{}, fail: fail}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.New(mcptest.Options{}) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			method := "?"
			if _, rest, ok := strings.Cut(string(body), `"method":"`); ok {
				method, _, _ = strings.Cut(rest, `"`)
			}
			f.mu.Lock()
			f.calls[method]++
			n := f.calls[method]
			f.mu.Unlock()
			if f.fail(method, n, w) {
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *flakyServer) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// drop closes the connection without an answer, as a reset does.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

func httpEntry(name, url string) string { return `"` + name + `": {"url": "` + url + `"}` }

func TestConnectRetriesTransientFailures(t *testing.T) {
	// initialize: a dropped connection, then 503 with Retry-After 0, then the server.
	f, url := newFlakyServer(t, func(method string, n int, w http.ResponseWriter) bool {
		if method != "initialize" {
			return false
		}
		switch n {
		case 1:
			drop(w)
			return true
		case 2:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	m := newTestManager(t, httpEntry("flaky", url))
	wait(t, m)
	if st, _ := m.Status("flaky"); st.State != StateConnected {
		t.Fatalf("flaky = %+v", st)
	}
	if n := f.count("initialize"); n != 3 {
		t.Fatalf("initialize was sent %d times", n)
	}
}

func TestConnectRetriesAreBounded(t *testing.T) {
	f, url := newFlakyServer(t, func(method string, _ int, w http.ResponseWriter) bool {
		http.Error(w, "down", http.StatusBadGateway)
		return true
	})
	m := newTestManager(t, httpEntry("down", url))
	wait(t, m)
	st, _ := m.Status("down")
	if st.State != StateFailed || !strings.HasSuffix(st.Error, "(HTTP 502 Bad Gateway, 3 attempts)") {
		t.Fatalf("down = %+v", st)
	}
	if n := f.count("initialize"); n != 3 {
		t.Fatalf("initialize was sent %d times", n)
	}
	// 501 is not transient: one attempt.
	f2, url2 := newFlakyServer(t, func(_ string, _ int, w http.ResponseWriter) bool {
		http.Error(w, "no", http.StatusNotImplemented)
		return true
	})
	m2 := newTestManager(t, httpEntry("nope", url2))
	wait(t, m2)
	if st, _ := m2.Status("nope"); st.State != StateFailed || f2.count("initialize") != 1 {
		t.Fatalf("nope = %+v after %d attempts", st, f2.count("initialize"))
	}
}

func TestRetryAfterLongerThanTheBoundEndsTheRetries(t *testing.T) {
	f, url := newFlakyServer(t, func(_ string, _ int, w http.ResponseWriter) bool {
		w.Header().Set("Retry-After", "120")
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return true
	})
	m := newTestManager(t, httpEntry("limited", url))
	start := time.Now()
	wait(t, m)
	st, _ := m.Status("limited")
	if st.State != StateFailed || !strings.HasSuffix(st.Error, `(HTTP 429 Too Many Requests; MCP server "limited" asks to retry after 2m0s, longer than pi-go waits)`) {
		t.Fatalf("limited = %+v", st)
	}
	if n := f.count("initialize"); n != 1 {
		t.Fatalf("initialize was sent %d times", n)
	}
	if time.Since(start) > 2*time.Minute {
		t.Fatal("waited for the Retry-After")
	}
}

func TestResourcesRetryOnceToolCallsNever(t *testing.T) {
	f, url := newFlakyServer(t, func(method string, n int, w http.ResponseWriter) bool {
		if (method == "resources/read" || method == "tools/call") && n == 1 {
			http.Error(w, "hiccup", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	m := newTestManager(t, httpEntry("flaky", url))
	wait(t, m)
	c, _ := m.conn("flaky")
	var text string
	err := c.withSession(context.Background(), func(ctx context.Context, s *sdk.ClientSession) error {
		res, err := s.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://readme"})
		if err == nil {
			text = res.Contents[0].Text
		}
		return err
	})
	if err != nil || text == "" || f.count("resources/read") != 2 {
		t.Fatalf("read: %v %q after %d requests", err, text, f.count("resources/read"))
	}
	if _, err := m.CallTool(context.Background(), "flaky", "echo", map[string]any{"text": "x"}, nil); err == nil {
		t.Fatal("the failed tool call succeeded")
	}
	if n := f.count("tools/call"); n != 1 {
		t.Fatalf("tools/call was sent %d times", n)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "-1": 0, "soon": 0,
		"Thu, 03 Dec 2026 12:00:07 GMT": 7 * time.Second, "Thu, 03 Dec 2026 11:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}
