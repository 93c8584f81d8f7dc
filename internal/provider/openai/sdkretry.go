package openai

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// SDKMaxRetries is how many times pi 0.73.1's OpenAI SDK (openai-node 6) sends a request again by
// itself when it failed before the answer began: a failed connection, or status 408, 409, 429 or 5xx
// (the x-should-retry header overrides). Only then does pi's agent see an error (and its own retry,
// with its events and countdown, begins). Config.MaxRetries may take this value; pi-go's command
// leaves it at 0, so that one rate limit is not up to twelve requests under the harness's retries.
const SDKMaxRetries = 2

// maxSDKRetryWait bounds the wait a server may ask for (Retry-After, retry-after-ms) at this level.
// pi's SDK waits whatever it is told, silently; a longer wait is left to the harness's retry, which
// shows its countdown and can be cancelled.
const maxSDKRetryWait = 60 * time.Second

// retryWait says whether a failed attempt is sent again and after how long: the server's
// retry-after-ms or Retry-After when given, else 0.5 s doubling per retry up to 8 s, less up to 25%
// jitter (jitter in [0, 1)), as openai-node does. resp is nil when the request got no answer (err).
func retryWait(resp *http.Response, retriesSoFar int, jitter float64, now time.Time) (time.Duration, bool) {
	if resp != nil {
		switch resp.Header.Get("x-should-retry") {
		case "true":
		case "false":
			return 0, false
		default:
			s := resp.StatusCode
			if s != http.StatusRequestTimeout && s != http.StatusConflict && s != http.StatusTooManyRequests && s < 500 {
				return 0, false
			}
		}
		if d, ok := provider.ServerRetryWait(resp.Header, now); ok {
			if d > maxSDKRetryWait {
				return 0, false
			}
			return max(d, 0), true
		}
	}
	secs := math.Min(0.5*math.Pow(2, float64(retriesSoFar)), 8)
	return time.Duration(secs * (1 - jitter*0.25) * float64(time.Second)), true
}

// sendWithRetries sends req through send, and again after a retryable failure while retries remain.
// A wait is cut short by the request's context (abort, idle timeout), whose error is returned.
func sendWithRetries(req *http.Request, retries int, sleep func(context.Context, time.Duration) error,
	send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(req.Context())
		}
		resp, err := send(r)
		if attempt >= retries || req.Context().Err() != nil {
			return resp, err
		}
		wait, again := retryWait(resp, attempt, rand.Float64(), time.Now())
		if !again {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
