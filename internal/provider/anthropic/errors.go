package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/pi-go/pi-go/internal/provider"
)

// statusMessage words an error status as pi's SDK does, "<status> <body>" ("529 {"type":"error",
// "error":{"type":"overloaded_error",…}}"), which provider.IsRetryable reads: overloaded and 429 are
// transient, 400/401/403/404 are not. A Retry-After longer than maxRetryDelay (when > 0) ends the
// attempts, as pi's does.
func statusMessage(e *sdk.Error, maxRetryDelay time.Duration) string {
	body := strings.TrimSpace(e.RawJSON())
	var msg string
	if body == "" {
		msg = fmt.Sprintf("%d status code (no body)", e.StatusCode)
	} else {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(body)) == nil {
			body = compact.String()
		}
		msg = fmt.Sprintf("%d %s", e.StatusCode, body)
	}
	if e.Response != nil {
		if ra, ok := retryAfter(e.Response.Header); ok {
			msg += fmt.Sprintf(" (retry after %s)", ra.Round(time.Second))
			if maxRetryDelay > 0 && ra > maxRetryDelay {
				msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
					ra.Round(time.Second), maxRetryDelay.Round(time.Second), provider.NotRetryingNote)
			}
		}
	}
	return msg
}

// retryAfter reads retry-after-ms or retry-after (seconds or an HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// connectionMessage words a request that got no answer ("Connection error.", pi's SDK's words, which
// the retry reads as transient).
func connectionMessage(err error, base string) string {
	return fmt.Sprintf("Connection error. (%s: %v)", base, err)
}

// connectionLostMessage words a stream that broke off.
func connectionLostMessage(err error) string {
	return fmt.Sprintf("Connection lost: %v", err)
}

// redact removes the API key from a message.
func redact(msg, key string) string {
	if key == "" {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}
