package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Retries of transient HTTP failures, as pi makes them: connecting to an HTTP server is tried
// again twice, after 250 ms and 1 s; reading and listing resources once. Tool calls are never
// retried: the server may have performed them. A Retry-After the server sends replaces the delay,
// up to maxRetryAfter; a longer one ends the retries at once, saying so.
var (
	connectRetryDelays  = []time.Duration{250 * time.Millisecond, time.Second}
	resourceRetryDelays = []time.Duration{250 * time.Millisecond}
)

const maxRetryAfter = 10 * time.Second

// transientFailure is an HTTP failure worth another attempt (pi's isTransientError): the request
// did not get through (connection refused or reset), or the server answered 408, 429 or a 5xx
// other than 501.
type transientFailure struct {
	status     int           // 0: the request failed on the network
	retryAfter time.Duration // the server's Retry-After; 0 when it sent none
	err        error         // the network error
}

func (f *transientFailure) String() string {
	if f.status == 0 {
		return f.err.Error()
	}
	return fmt.Sprintf("HTTP %d %s", f.status, http.StatusText(f.status))
}

func isTransientStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests ||
		status >= 500 && status != http.StatusNotImplemented
}

// transientLog receives the transient failures of the HTTP requests made under one context: the
// SDK reports them as plain errors, so the transport notes them where the retry can look.
type transientLog struct {
	mu   sync.Mutex
	last *transientFailure
}

type transientLogKey struct{}

func withTransientLog(ctx context.Context) (context.Context, *transientLog) {
	l := &transientLog{}
	return context.WithValue(ctx, transientLogKey{}, l), l
}

// take returns the last failure noted and forgets it.
func (l *transientLog) take() *transientFailure {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.last
	l.last = nil
	return f
}

// noteTransient records a transient outcome of req in the log of its context, if any.
func noteTransient(req *http.Request, resp *http.Response, err error) {
	l, _ := req.Context().Value(transientLogKey{}).(*transientLog)
	if l == nil {
		return
	}
	var f *transientFailure
	switch {
	case err != nil:
		if req.Context().Err() != nil {
			return // the caller gave up: not the server's failure
		}
		var authErr *authRequiredError
		if errors.As(err, &authErr) {
			return
		}
		f = &transientFailure{err: err}
	case isTransientStatus(resp.StatusCode):
		f = &transientFailure{status: resp.StatusCode, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	default:
		return
	}
	l.mu.Lock()
	l.last = f
	l.mu.Unlock()
}

// parseRetryAfter reads Retry-After: seconds, or an HTTP date; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// retryTransient runs try until it succeeds, fails for a reason that is not transient, or the
// delays are used up; each try runs with a fresh log. The final error says how many attempts were
// made and why the last retry did not happen.
func retryTransient[T any](ctx context.Context, server string, delays []time.Duration, try func(ctx context.Context) (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		tctx, log := withTransientLog(ctx)
		v, err := try(tctx)
		if err == nil {
			return v, nil
		}
		f := log.take()
		if f == nil || ctx.Err() != nil {
			return v, err
		}
		if attempt >= len(delays) {
			return v, fmt.Errorf("%w (%s, %d attempts)", err, f, attempt+1)
		}
		delay := delays[attempt]
		if f.retryAfter > maxRetryAfter {
			return v, fmt.Errorf("%w (%s; MCP server %q asks to retry after %s, longer than pi-go waits)", err, f, server, f.retryAfter.Round(time.Second))
		}
		if f.retryAfter > 0 {
			delay = f.retryAfter
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return v, err
		}
	}
}
