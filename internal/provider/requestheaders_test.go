package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// headerHooks edits the headers as a before_provider_headers handler does: one added, one changed,
// one set to null, one dropped from the record.
type headerHooks struct {
	recordingHooks
	seen []map[string]string
}

func (h *headerHooks) BeforeHeaders(_ context.Context, headers map[string]string) map[string]*string {
	h.seen = append(h.seen, headers)
	out := map[string]*string{}
	for k, v := range headers {
		out[k] = &v
	}
	trace, changed := "trace-1", "changed"
	out["x-trace-id"] = &trace
	out["x-extra"] = &changed
	out["x-nulled"] = nil
	delete(out, "x-dropped")
	return out
}

func TestHookClientAppliesHeaderHooksToEveryAttempt(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		if len(got) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	c := HookClient(nil)
	h := &headerHooks{}
	ctx := WithRequestHooks(context.Background(), h)
	for range 2 { // a refused attempt and its retry: the hook is asked once, its changes apply to both
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Authorization": "Bearer secret", "X-Extra": "orig", "X-Nulled": "n", "X-Dropped": "d", "Content-Type": "application/json"} {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("X-Trace-Id") != "" {
			t.Error("the caller's request was changed")
		}
	}
	if len(h.seen) != 1 {
		t.Fatalf("the hook was asked %d times", len(h.seen))
	}
	if _, ok := h.seen[0]["authorization"]; ok || h.seen[0]["x-extra"] != "orig" || h.seen[0]["content-type"] != "application/json" {
		t.Errorf("the hook saw %v", h.seen[0])
	}
	if len(got) != 2 {
		t.Fatalf("%d attempts", len(got))
	}
	for i, hd := range got {
		if hd.Get("X-Trace-Id") != "trace-1" || hd.Get("X-Extra") != "changed" || hd.Get("X-Nulled") != "" ||
			hd.Get("X-Dropped") != "" || hd.Get("Authorization") != "Bearer secret" || hd.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d sent %v", i, hd)
		}
	}
}
